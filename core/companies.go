package core

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"strconv"
)

// CompanyCursor is a keyset position in the companies listing: the last company returned.
type CompanyCursor struct {
	FeedbackCount int
	ID            ID
}

// CompanyQuery selects a page of a workspace's companies, ordered by FeedbackCount descending, then id.
type CompanyQuery struct {
	Limit int
	After *CompanyCursor
}

// CompanyPage is one page of companies; Next is the cursor of the following page, "" on the last.
type CompanyPage struct {
	Companies []Company
	Next      string
}

// CompanyList validates a listing request (limit as given, cursor from the last page) and returns one
// page. Counts move while a client pages, so a company whose count changes between two pages can appear on
// both or on neither; the order within one page is always exact.
func (s *Service) CompanyList(ctx context.Context, ws ID, limit, cursor string) (CompanyPage, error) {
	q := CompanyQuery{Limit: DefaultPageSize}
	if limit != "" {
		n, err := strconv.Atoi(limit)
		if err != nil || n < 1 || n > MaxPageSize {
			return CompanyPage{}, invalid("limit", "invalid limit", "limit must be a whole number from 1 to %d.", MaxPageSize)
		}
		q.Limit = n
	}
	key, err := s.cursorKey(ctx)
	if err != nil {
		return CompanyPage{}, err
	}
	if cursor != "" {
		c, err := decodeCompanyCursor(cursor, key, ws)
		if err != nil {
			return CompanyPage{}, invalid("cursor", "invalid cursor", "The cursor was not issued for this listing; start again without it.")
		}
		q.After = &c
	}
	n := q.Limit
	q.Limit++ // one more than asked tells whether another page follows
	cs, err := s.store.CompanyList(ctx, ws, q)
	if err != nil {
		return CompanyPage{}, err
	}
	p := CompanyPage{Companies: cs}
	if len(cs) > n {
		p.Companies = cs[:n]
		last := p.Companies[n-1]
		p.Next = encodeCompanyCursor(CompanyCursor{FeedbackCount: last.FeedbackCount, ID: last.ID}, key, ws)
	}
	return p, nil
}

// Company returns one company of ws (ErrNotFound for an id of no company of ws).
func (s *Service) Company(ctx context.Context, ws, id ID) (Company, error) {
	return s.store.Company(ctx, ws, id)
}

// A companies cursor is signed like a records cursor, over a label of its own, so that neither listing
// accepts the other's.
func companyCursorSum(key, pos []byte, ws ID) []byte {
	h := hmac.New(sha256.New, key)
	fmt.Fprintf(h, "companies|%s|", ws)
	h.Write(pos)
	return h.Sum(nil)[:cursorSumLen]
}

func encodeCompanyCursor(c CompanyCursor, key []byte, ws ID) string {
	pos := binary.BigEndian.AppendUint64(nil, uint64(c.FeedbackCount))
	pos = append(pos, c.ID...)
	return base64.RawURLEncoding.EncodeToString(append(pos, companyCursorSum(key, pos, ws)...))
}

func decodeCompanyCursor(s string, key []byte, ws ID) (CompanyCursor, error) {
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil || len(b) != 8+24+cursorSumLen {
		return CompanyCursor{}, fmt.Errorf("malformed cursor")
	}
	pos, sum := b[:32], b[32:]
	if !hmac.Equal(sum, companyCursorSum(key, pos, ws)) || !ValidID(string(pos[8:])) {
		return CompanyCursor{}, fmt.Errorf("cursor signature mismatch")
	}
	return CompanyCursor{FeedbackCount: int(binary.BigEndian.Uint64(pos[:8])), ID: ID(pos[8:])}, nil
}
