package sqlite

import (
	"context"
	"os"
	"time"
)

// Copying the write-ahead log back into the database file (a checkpoint) used to happen every thousand
// pages inside whichever commit crossed the line, costing that write milliseconds. A connection of its own
// now does it in the background once the log has grown past walCheckpointBytes, PASSIVE, so it never blocks
// the writer or the readers. The writer still checkpoints itself at 4,000 pages (wal_autocheckpoint on its
// connection): under a bulk import that never pauses, only the writer can start the log over, and a log
// left to grow made every page lookup slower.
const (
	walCheckpointBytes = 4 << 20
	walCheckEvery      = 100 * time.Millisecond
)

// checkpointer runs until Close.
func (s *Store) checkpointer() {
	defer close(s.checkpointed)
	tick := time.NewTicker(walCheckEvery)
	defer tick.Stop()
	for {
		select {
		case <-tick.C:
			if fi, err := os.Stat(s.path + "-wal"); err == nil && fi.Size() > walCheckpointBytes {
				// A failure (the disk is full, say) leaves the log as it is; the next tick tries again.
				_, _ = s.ck.ExecContext(context.Background(), `PRAGMA wal_checkpoint(PASSIVE)`)
			}
		case <-s.quit:
			return
		}
	}
}
