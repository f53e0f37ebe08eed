package sqlite

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/feedbridge/feedbridge/core"
	sqlite "modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// A full disk (or a file that became read-only) lets the database answer reads while every write fails,
// so reading alone would call the store healthy. The writer therefore remembers the last write that
// failed for such a reason until a transaction commits again, and Ping reports it; while it is set,
// Ping itself tries a one-row write now and then, so that readiness comes back when the disk has room
// even if no client writes meanwhile.
type writeHealth struct {
	mu     sync.Mutex
	fault  error     // the last storage failure of a write; nil after a commit
	probed time.Time // when Ping last tried a write
}

// probeEvery spaces Ping's trial writes while writes are failing.
const probeEvery = time.Second

// storageFault tells whether err means the file cannot take writes, as opposed to a wrong request.
func storageFault(err error) bool {
	var se *sqlite.Error
	if !errors.As(err, &se) {
		return false
	}
	switch se.Code() & 0xff {
	case sqlite3.SQLITE_FULL, sqlite3.SQLITE_IOERR, sqlite3.SQLITE_READONLY, sqlite3.SQLITE_CANTOPEN:
		return true
	}
	return false
}

// observe records the outcome of one writer transaction: committed clears the fault, and any error of
// the transaction that is a storage failure sets it.
func (h *writeHealth) observe(committed bool, errs []error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if committed {
		h.fault = nil
		return
	}
	for _, err := range errs {
		if storageFault(err) {
			h.fault = err
			return
		}
	}
}

func (h *writeHealth) current() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.fault
}

// checkWrites is Ping's write check: nil when the last write transaction did not fail for lack of storage,
// else the result of a trial write (at most one per probeEvery).
func (s *Store) checkWrites(ctx context.Context) error {
	if s.health.current() == nil {
		return nil
	}
	s.health.mu.Lock()
	due := time.Since(s.health.probed) >= probeEvery
	if due {
		s.health.probed = time.Now()
	}
	s.health.mu.Unlock()
	if due {
		_ = s.write(ctx, "probe", func(tx *wtx) error {
			_, err := tx.ExecContext(tx.ctx, `INSERT INTO store_probe(id, at) VALUES (1, ?)
				ON CONFLICT(id) DO UPDATE SET at = excluded.at`, s.nowMS())
			return err
		})
	}
	if err := s.health.current(); err != nil {
		return fmt.Errorf("sqlite: ping: writes are failing: %w: %w", core.ErrUnavailable, err)
	}
	return nil
}
