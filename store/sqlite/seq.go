package sqlite

import (
	"fmt"
	"time"
)

// A record's seq (its rowid, and the rowid of its full-text entry) orders records newest first by hour:
// each hour of creation time owns a block of seqSpan seqs, later hours lower blocks, and inside a block
// seqs are handed out downwards as records arrive. A search walks the trigram index in rowid order, which
// is creation order from one block to the next, and stops after one page instead of collecting every match
// and sorting it; the default newest-first listing is FTS5's fast forward direction. Within the block at
// a page's edge the order is settled exactly from the listing index (see search.go).
//
// Blocks are hours, not milliseconds, because FTS5 stores each posting as the distance from the previous
// rowid: dense seqs inside a block keep the trigram index at a third of the size it has when every
// millisecond owns a block.
const (
	blockMS = int64(time.Hour / time.Millisecond)
	seqSpan = int64(1) << 24 // records per hour
	// blockMax bounds the blocks (about ±1.9 million years); further times share the edge blocks.
	blockMax = int64(1)<<38 - 1
)

// block is the block number of creation time t.
func block(t time.Time) int64 {
	m := ms(t)
	b := m / blockMS
	if m%blockMS < 0 {
		b-- // floor, also before 1970
	}
	return max(-blockMax, min(blockMax, b))
}

// seqRange is the half-open seq range [lo, hi) of block b.
func seqRange(b int64) (lo, hi int64) { return -b*seqSpan - seqSpan + 1, -b*seqSpan + 1 }

// blockRange is the seq range of the block of t.
func blockRange(t time.Time) (lo, hi int64) { return seqRange(block(t)) }

// blockTimes is the creation-time range [from, to) of block b in milliseconds; the edge blocks are open.
func blockTimes(b int64) (from, to int64) {
	from, to = b*blockMS, (b+1)*blockMS
	if b == -blockMax {
		from = -1 << 63
	}
	if b == blockMax {
		to = 1<<63 - 1
	}
	return from, to
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
		return 0, fmt.Errorf("more than %d records created in the hour of %v", seqSpan, created)
	}
	w.nextSeq[lo] = s - 1
	return s, nil
}
