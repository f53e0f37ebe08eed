package sqlite

import (
	"context"
	"time"
)

// Full-text entries are written in batches. FTS5 flushes its pending terms into a new index segment at
// every commit and merges segments as they pile up, so the smaller the transactions that write them, the
// more the index is rewritten: a lone record's full-text entry cost more than the rest of its write, and an
// import's batches spent much of their time merging. Every
// transaction therefore queues its records' seqs in records_fts_pending (in the same transaction, so
// nothing is lost in a crash), and the indexer moves the queue into the index in one statement per batch,
// a moment later. Searches read the queue as well (search.go), so this changes what a write costs, never
// what a search finds.
const (
	// indexDelay is how long the indexer lets the queue grow before it drains it. Larger drains make
	// larger segments, which need less merging during a large import (the CSV benchmark in
	// bench/RESULTS.md measures it).
	indexDelay = 2 * time.Second
	// indexBatch is how many queued entries one drain transaction moves at most; a queue this long is
	// drained at once, without waiting for indexDelay. It bounds the queue a search reads, which a search
	// pays for in proportion to its length (BenchmarkSearchQueued).
	indexBatch = 50000
)

// queued is called after a commit that queued n entries: it wakes the indexer.
func (s *Store) queued(n int) {
	if n == 0 {
		return
	}
	if s.backlog.Add(int64(n)) >= indexBatch {
		s.kickNow()
	}
	select {
	case s.kick <- struct{}{}:
	default:
	}
}

func (s *Store) kickNow() {
	select {
	case s.urgent <- struct{}{}:
	default:
	}
}

// indexer drains the queue a moment after it is woken, until Close.
func (s *Store) indexer() {
	defer close(s.indexed)
	for {
		select {
		case <-s.kick:
		case <-s.urgent:
		case <-s.quit:
			return
		}
		select {
		case <-time.After(indexDelay):
		case <-s.urgent:
		case <-s.quit:
			return
		}
		// On failure (a full disk, say) the entries stay queued, and searches still find their records.
		for s.FlushIndex(housekeeping()) != nil {
			select {
			case <-time.After(time.Second):
			case <-s.quit:
				return
			}
		}
	}
}

// A drain moves up to indexBatch entries per transaction, the size that merges least, while the daemon has
// the store to itself. Once a command has waited for the write lock lately (turn.shared), an index
// transaction would be what it waits for, so a drain moves indexChunk entries at a time instead: a number
// that follows how long the last chunk's statements took, halved while they take longer than indexTxTime
// and doubled while they take less than a quarter of it. The write lock is then held for the index about
// indexTxTime at a time, however slow the machine. FTS5's automatic merging does work in proportion to
// what each transaction writes, so small chunks leave no merge for one long transaction to pay; they
// only merge more in all.
const (
	indexTxTime     = 100 * time.Millisecond
	minIndexChunk   = 1000
	firstIndexChunk = 5000
)

// FlushIndex writes every queued full-text entry into the index now. The indexer calls it; benchmarks
// call it to charge the work to the writes that queued it.
func (s *Store) FlushIndex(ctx context.Context) error {
	for {
		var moved int64
		chunk, adapt := int64(indexBatch), s.turn.shared()
		if adapt {
			chunk = s.indexChunk.Load()
		}
		var took time.Duration // the statements' time; the commit adds a fraction of it
		err := s.write(ctx, "index", func(tx *wtx) error {
			began := time.Now()
			defer func() { took = time.Since(began) }()
			// A drained entry no longer marks its record as uncounted.
			if err := foldCounts(tx); err != nil {
				return err
			}
			if _, err := tx.ExecContext(tx.ctx, `INSERT INTO records_fts(rowid, search_text)
				SELECT r.seq, r.search_text FROM records r
				WHERE r.seq IN (SELECT seq FROM records_fts_pending ORDER BY seq LIMIT ?) ORDER BY r.seq`, chunk); err != nil {
				return err
			}
			res, err := tx.ExecContext(tx.ctx, `DELETE FROM records_fts_pending
				WHERE seq IN (SELECT seq FROM records_fts_pending ORDER BY seq LIMIT ?)`, chunk)
			if err != nil {
				return err
			}
			moved, err = res.RowsAffected()
			return err
		})
		if err != nil {
			return err
		}
		s.backlog.Add(-moved)
		if moved < chunk {
			return nil
		}
		switch {
		case !adapt:
		case took > indexTxTime && chunk > minIndexChunk:
			s.indexChunk.Store(max(chunk/2, minIndexChunk))
		case took < indexTxTime/4 && chunk < indexBatch:
			s.indexChunk.Store(min(chunk*2, indexBatch))
		}
	}
}
