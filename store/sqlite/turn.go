package sqlite

import (
	"os"
	"time"
)

// SQLite's write lock is not fair: a process waiting for it polls, and a daemon that starts its next
// transaction the moment it commits can keep a command waiting for as long as it has work queued (an
// import, an insight backlog). So processes take turns through an advisory lock on a file beside the
// database: a writer holds it shared while it waits for the write lock, and before each transaction every
// writer first checks, with an exclusive attempt, that no other process is waiting; if one is, it lets
// that one go first. The daemon's check costs two system calls per transaction.
type turn struct {
	f         *os.File
	skipUntil time.Time // after a wait that ran out, stop yielding for a while (a stopped process holds the mark)
}

const (
	// maxYield bounds how long a writer waits for another process's turn; a waiter normally has the lock
	// within its busy handler's next poll (at most 100 ms).
	maxYield = time.Second
	// yieldPause is how long a writer stops yielding after a wait that ran out.
	yieldPause = 10 * time.Second
)

// openTurn opens the turn file (PATH-turn, 0600). Without it (read-only, or a file system that refuses it)
// writers simply do not take turns.
func openTurn(path string, mode Mode) *turn {
	if mode == ModeReadOnly {
		return nil
	}
	f, err := os.OpenFile(path+"-turn", os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil
	}
	return &turn{f: f}
}

// enter is called just before BEGIN IMMEDIATE and leave as soon as it returns. The store's writer is one
// goroutine at a time (the lead channel), so a turn is never entered twice at once.
func (t *turn) enter() {
	if t == nil {
		return
	}
	if now := time.Now(); now.After(t.skipUntil) {
		for deadline := now.Add(maxYield); !tryExclusive(t.f); time.Sleep(time.Millisecond) {
			if time.Now().After(deadline) {
				t.skipUntil = time.Now().Add(yieldPause)
				break
			}
		}
	}
	markWaiting(t.f)
}

func (t *turn) leave() {
	if t != nil {
		unlock(t.f)
	}
}

func (t *turn) close() {
	if t != nil {
		t.f.Close()
	}
}
