package core

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// ListRequest is a listing as a client asked for it: raw parameter values, validated by List.
type ListRequest struct {
	RecordType   string
	Search       string
	Sort         string
	CreatedFrom  string
	CreatedTo    string
	UpdatedSince string
	Product      string
	User         string
	Tags         []string
	Limit        string
	Cursor       string
	// Filters of records that move.
	Statuses      []string
	Company       string
	CustomerEmail string
	Linked        string
	Order         string
	Source        string // a source label in any spelling the source set knows
	// Theme keeps records one of whose insights names this theme (the console's signals open their
	// records with it); the API does not offer it.
	Theme string
}

// Page is one page of a listing; Next is the cursor of the following page, "" on the last.
type Page struct {
	Records []Record
	Next    string
}

// Listing limits. MaxSearch bounds the search term: matching cost grows faster than its length, so a term
// far longer than any real search would hold a reader for a long time.
const (
	DefaultPageSize = 100
	MaxPageSize     = 1000
	MaxSearch       = 1000
)

// List validates a listing request and returns one page.
func (s *Service) List(ctx context.Context, ws ID, req ListRequest) (Page, error) {
	q, err := ParseListRequest(req)
	if err != nil {
		return Page{}, err
	}
	if req.Source != "" {
		// Stored labels are canonical, so the filter is too; a label outside the set matches nothing
		// stored and is refused rather than answered with an empty list.
		l, ok := s.sources.Lookup(req.Source)
		if !ok {
			return Page{}, invalid("source", "unknown source", "source must be one of %s.", strings.Join(s.sources.Labels(), ", "))
		}
		q.Source = l
	}
	return s.listPage(ctx, ws, q, req.Cursor)
}

// listPage returns the page of q after the client's cursor.
func (s *Service) listPage(ctx context.Context, ws ID, q ListQuery, cursor string) (Page, error) {
	key, err := s.cursorKey(ctx)
	if err != nil {
		return Page{}, err
	}
	if cursor != "" {
		c, err := decodeCursor(cursor, key, ws, q)
		if err != nil {
			return Page{}, invalid("cursor", "invalid cursor", "The cursor was not issued for this listing; start again without it.")
		}
		q.After = &c
	}
	limit := q.Limit
	q.Limit++ // one more than asked tells whether another page follows
	recs, err := s.store.Records(ctx, ws, q)
	if err != nil {
		return Page{}, err
	}
	p := Page{Records: recs}
	if len(recs) > limit {
		p.Records = recs[:limit]
		last := p.Records[limit-1]
		c := Cursor{CreatedAt: last.CreatedAt, ID: last.ID}
		switch q.Order {
		case OrderUpdated:
			c.Key = last.UpdatedAt.UnixMilli()
		case OrderDemand:
			c.Key = int64(last.FeedbackCount)
		}
		p.Next = encodeCursor(c, key, ws, q)
	}
	return p, nil
}

// ParseListRequest applies the contract's rules to the raw parameters (without the cursor).
func ParseListRequest(req ListRequest) (ListQuery, error) {
	q := ListQuery{Type: RecordIdea, Limit: DefaultPageSize}
	if req.RecordType != "" {
		t, ok := ParseRecordType(req.RecordType)
		if !ok {
			return q, invalid("record_type", "invalid record_type", "record_type must be one of Idea, Feedback, Feature, Objective.")
		}
		q.Type = t
	}
	if n := runeLen(req.Search); n > MaxSearch {
		return q, invalid("search", "search is too long", "The search has %d characters; the limit is %d.", n, MaxSearch)
	}
	q.Search = Fold(strings.TrimSpace(req.Search))
	if n := runeLen(req.Theme); n > MaxSearch {
		return q, invalid("theme", "theme is too long", "The theme has %d characters; the limit is %d.", n, MaxSearch)
	}
	q.Theme = strings.TrimSpace(req.Theme)
	switch strings.ToLower(req.Sort) {
	case "", "desc":
	case "asc":
		q.Asc = true
	default:
		return q, invalid("sort", "invalid sort", "sort must be asc or desc.")
	}
	var err error
	if q.From, err = parseTimeParam("created_from", req.CreatedFrom, false); err != nil {
		return q, err
	}
	if q.To, err = parseTimeParam("created_to", req.CreatedTo, true); err != nil {
		return q, err
	}
	if q.UpdatedSince, err = parseTimeParam("updated_since", req.UpdatedSince, false); err != nil {
		return q, err
	}
	if req.Product != "" {
		if q.Type == RecordObjective {
			return q, invalid("product", "product filter does not apply to Objective", "Objectives have no product; drop the product parameter.")
		}
		if !ValidID(req.Product) {
			return q, invalid("product", "invalid product id", "product must be a 24-character hex id.")
		}
		q.ProductID = ID(req.Product)
	}
	if req.User != "" {
		if !ValidID(req.User) {
			return q, invalid("user", "invalid user id", "user must be a 24-character hex id.")
		}
		q.UserID = ID(req.User)
	}
	// A record carries at most MaxTags tags, so a longer filter can match nothing; each value adds to the
	// query's depth, and a thousand of them went past what the store takes.
	if len(req.Tags) > MaxTags {
		return q, invalid("tags", "too many tags", "A listing filters by at most %d tags; %d were given.", MaxTags, len(req.Tags))
	}
	for _, t := range req.Tags {
		if !ValidID(t) {
			return q, invalid("tags", "invalid tag id", "Each tags value must be a 24-character hex id; %q is not.", t)
		}
		q.TagIDs = append(q.TagIDs, ID(t))
	}
	if req.Limit != "" {
		n, err := strconv.Atoi(req.Limit)
		if err != nil || n < 1 || n > MaxPageSize {
			return q, invalid("limit", "invalid limit", "limit must be a whole number from 1 to %d.", MaxPageSize)
		}
		q.Limit = n
	}
	return q, parseMoveFilters(&q, req)
}

// parseTimeParam reads RFC 3339 with any offset, or a date; a date as an upper bound means its last
// millisecond.
func parseTimeParam(name, v string, end bool) (time.Time, error) {
	if v == "" {
		return time.Time{}, nil
	}
	if t, err := time.Parse(time.RFC3339Nano, v); err == nil {
		return t.UTC(), nil
	}
	if d, err := time.Parse("2006-01-02", v); err == nil {
		if end {
			return d.Add(24*time.Hour - time.Millisecond), nil
		}
		return d, nil
	}
	return time.Time{}, invalid(name, "invalid "+name, "%s must be an RFC 3339 timestamp or a YYYY-MM-DD date.", name)
}

// Cursors are opaque to clients: the last position plus an HMAC, keyed by the store's own secret, over the
// workspace, the query and the position. A cursor that this store never issued, or one from another
// listing, is refused instead of silently misread, and no client can make one.
func cursorSum(key, pos []byte, ws ID, q ListQuery) []byte {
	h := hmac.New(sha256.New, key)
	fmt.Fprintf(h, "%s|%s|%s|%t|%d|%d|%d|%s|%s|%v|", ws, q.Type, q.Search, q.Asc, q.From.UnixMilli(),
		q.To.UnixMilli(), q.UpdatedSince.UnixMilli(), q.ProductID, q.UserID, q.TagIDs)
	linked := "-"
	if q.Linked != nil {
		linked = strconv.FormatBool(*q.Linked)
	}
	fmt.Fprintf(h, "%q|%s|%q|%s|%s|%s|%q|", q.Statuses, q.CompanyID, q.CustomerEmailKey, linked, q.LinkedTo, q.Order, q.Source)
	if q.Theme != "" { // only when asked, so that cursors issued before the filter existed stay valid
		fmt.Fprintf(h, "theme %q|", q.Theme)
	}
	h.Write(pos)
	return h.Sum(nil)[:cursorSumLen]
}

// cursorSumLen is how much of the HMAC a cursor carries: 128 bits cannot be guessed.
const cursorSumLen = 16

func encodeCursor(c Cursor, key []byte, ws ID, q ListQuery) string {
	pos := binary.BigEndian.AppendUint64(nil, uint64(c.Key))
	pos = binary.BigEndian.AppendUint64(pos, uint64(c.CreatedAt.UnixMilli()))
	pos = append(pos, c.ID...)
	return base64.RawURLEncoding.EncodeToString(append(pos, cursorSum(key, pos, ws, q)...))
}

func decodeCursor(s string, key []byte, ws ID, q ListQuery) (Cursor, error) {
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil || len(b) != 16+24+cursorSumLen {
		return Cursor{}, fmt.Errorf("malformed cursor")
	}
	pos, sum := b[:40], b[40:]
	if !hmac.Equal(sum, cursorSum(key, pos, ws, q)) || !ValidID(string(pos[16:])) {
		return Cursor{}, fmt.Errorf("cursor signature mismatch")
	}
	sortKey := int64(binary.BigEndian.Uint64(pos[:8]))
	ms := int64(binary.BigEndian.Uint64(pos[8:16]))
	return Cursor{Key: sortKey, CreatedAt: time.UnixMilli(ms).UTC(), ID: ID(pos[16:])}, nil
}

// cursorKey reads the store's cursor secret once and keeps it.
func (s *Service) cursorKey(ctx context.Context) ([]byte, error) {
	s.keyMu.Lock()
	defer s.keyMu.Unlock()
	if s.cursorSecret == nil {
		k, err := s.store.StoreSecret(ctx, "cursor")
		if err != nil {
			return nil, fmt.Errorf("cursor key: %w", err)
		}
		s.cursorSecret = k
	}
	return s.cursorSecret, nil
}
