package sqlite

import (
	"fmt"
	"time"
)

// A record's seq (its rowid, and the rowid of its full-text entry) orders records newest first: each
// creation millisecond owns a block of seqSpan seqs, later milliseconds lower blocks. A search walks the
// trigram index in rowid order, which is creation order, and stops after one page instead of collecting
// every match and sorting it; the default newest-first listing is FTS5's fast forward direction. Within a
// block seqs follow insertion, not id, so the reader re-sorts the block at a page's edge (see search.go).
const (
	seqSpan = int64(1) << 20 // records per millisecond
	// msMax bounds the blocks: times beyond about 1830 or 2109 share the edge block, which stays correct
	// because the reader sorts a block by (createdAt, id) anyway.
	msMax = int64(1)<<42 - 1
)

// block is the seq block of creation millisecond m.
func block(m int64) int64 { return max(-msMax, min(msMax, m)) }

// blockRange is the half-open seq range [lo, hi) of the block of creation time t.
func blockRange(t time.Time) (lo, hi int64) {
	b := block(ms(t))
	return -b*seqSpan - seqSpan + 1, -b*seqSpan + 1
}

// seq assigns the next seq in the block of the record's creation time.
func (w *recordWriter) seq(created time.Time) (int64, error) {
	lo, hi := blockRange(created)
	s, ok := w.nextSeq[lo]
	if !ok {
		if err := w.tx.QueryRowContext(w.ctx, `SELECT coalesce(min(seq) - 1, ?) FROM records WHERE seq >= ? AND seq < ?`,
			hi-1, lo, hi).Scan(&s); err != nil {
			return 0, err
		}
	}
	if s < lo {
		return 0, fmt.Errorf("more than %d records created in the millisecond of %v", seqSpan, created)
	}
	w.nextSeq[lo] = s - 1
	return s, nil
}
