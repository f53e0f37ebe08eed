package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/feedbridge/feedbridge/core"
)

// A record's seq (its rowid, and the rowid of its full-text entry) is laid out so that a search can walk
// the trigram index of one workspace in creation order and stop after a page:
//
//	seq = workspace number << 48 | reversed hour block << 24 | counter
//
// The workspace number confines a search to that workspace's postings, so a small workspace next to a
// large one is searched as fast as if it were alone. Hour blocks are reversed so that newer hours have
// lower seqs and the default newest-first listing is FTS5's fast forward direction. Inside a block seqs
// are dense and follow insertion, not creation order; the block at a page's edge is read exactly from the
// listing index (search.go). Blocks are hours rather than milliseconds because FTS5 stores each posting
// as the distance from the previous rowid: dense seqs keep the index small.
const (
	blockMS       = int64(time.Hour / time.Millisecond)
	seqSpan       = int64(1) << 24 // records per workspace and hour
	blockMax      = int64(1)<<23 - 1
	maxWorkspaces = int64(1)<<15 - 1 // workspace numbers 1…32767 keep seqs positive
)

// block is the hour block of creation time t; times beyond about the years 1013 and 2927 share the edge
// blocks, which the edge handling reads exactly like any other.
func block(t time.Time) int64 {
	m := ms(t)
	b := m / blockMS
	if m%blockMS < 0 {
		b-- // floor, also before 1970
	}
	return max(-blockMax-1, min(blockMax, b))
}

// seqRange is the half-open seq range [lo, hi) of block b of workspace number num.
func seqRange(num, b int64) (lo, hi int64) {
	lo = num<<48 | (blockMax-b)<<24
	return lo, lo + seqSpan
}

// blockTimes is the creation-time range [from, to) of block b in milliseconds; the edge blocks are open.
func blockTimes(b int64) (from, to int64) {
	from, to = b*blockMS, (b+1)*blockMS
	if b == -blockMax-1 {
		from = -1 << 63
	}
	if b == blockMax {
		to = 1<<63 - 1
	}
	return from, to
}

// workspaceNum is the small number a workspace's seqs carry; ErrNotFound for an unknown workspace. The
// number never changes, so it is cached.
func (s *Store) workspaceNum(ctx context.Context, q queryer, ws core.ID) (int64, error) {
	s.numMu.Lock()
	n, ok := s.nums[ws]
	s.numMu.Unlock()
	if ok {
		return n, nil
	}
	err := q.QueryRowContext(ctx, `SELECT num FROM workspaces WHERE id = ?`, ws).Scan(&n)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, core.ErrNotFound
	}
	if err != nil {
		return 0, err
	}
	s.numMu.Lock()
	s.nums[ws] = n
	s.numMu.Unlock()
	return n, nil
}

// nextWorkspaceNum numbers a new workspace.
func nextWorkspaceNum(tx *wtx) (int64, error) {
	var n int64
	if err := tx.QueryRowContext(tx.ctx, `SELECT coalesce(max(num), 0) + 1 FROM workspaces`).Scan(&n); err != nil {
		return 0, err
	}
	if n > maxWorkspaces {
		return 0, fmt.Errorf("the SQLite store holds at most %d workspaces; use PostgreSQL for more", maxWorkspaces)
	}
	return n, nil
}

// seq assigns the next seq in the record's workspace and hour block.
func (w *recordWriter) seq(created time.Time) (int64, error) {
	if w.num == 0 {
		n, err := w.s.workspaceNum(w.ctx, w.tx, w.ws)
		if err != nil {
			return 0, err
		}
		w.num = n
	}
	lo, hi := seqRange(w.num, block(created))
	s, ok := w.nextSeq[lo]
	if !ok {
		if err := w.tx.QueryRowContext(w.ctx, `SELECT coalesce(max(seq) + 1, ?) FROM records WHERE seq >= ? AND seq < ?`,
			lo, lo, hi).Scan(&s); err != nil {
			return 0, err
		}
	}
	if s >= hi {
		return 0, fmt.Errorf("more than %d records created in the hour of %v", seqSpan, created)
	}
	w.nextSeq[lo] = s + 1
	return s, nil
}
