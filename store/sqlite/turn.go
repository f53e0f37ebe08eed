package sqlite

import (
	"os"
	"sync/atomic"
	"time"
)

// SQLite's write lock is not fair: a process waiting for it polls, and a daemon that starts its next
// transaction the moment it commits can keep a command waiting for as long as it has work queued (an
// import, an insight backlog). So a command lets the daemon know through an advisory lock on a file beside
// the database: it holds the file shared while it waits for the write lock, and the daemon, before each
// transaction, checks with an exclusive attempt that no command is waiting; if one is, it lets that one go
// first. The daemon's check costs two system calls per transaction; daemons never wait for each other.
type turn struct {
	f         *os.File
	daemon    bool         // yields to waiting commands; a command marks itself waiting instead
	skipUntil time.Time    // after a wait that ran out, stop yielding for a while (a stopped process holds the mark)
	waitedAt  atomic.Int64 // Unix nanoseconds when the daemon last found a command waiting
}

const (
	// maxYield bounds how long a writer waits for another process's turn; a waiter normally has the lock
	// within its busy handler's next poll (at most 100 ms).
	maxYield = time.Second
	// yieldPause is how long a writer stops yielding after a wait that ran out.
	yieldPause = 10 * time.Second
	// sharedFor is how long after a command last waited the daemon still counts the store as shared.
	sharedFor = 10 * time.Second
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
	return &turn{f: f, daemon: mode == ModeDaemon}
}

// enter is called just before BEGIN IMMEDIATE and leave as soon as it returns. The store's writer is one
// goroutine at a time (the lead channel), so a turn is never entered twice at once.
func (t *turn) enter() {
	if t == nil {
		return
	}
	if !t.daemon {
		markWaiting(t.f)
		return
	}
	if now := time.Now(); now.After(t.skipUntil) {
		for deadline := now.Add(maxYield); !tryExclusive(t.f); time.Sleep(time.Millisecond) {
			t.waitedAt.Store(time.Now().UnixNano())
			if time.Now().After(deadline) {
				t.skipUntil = time.Now().Add(yieldPause)
				break
			}
		}
		unlock(t.f)
	}
}

// shared reports whether a command has waited for the write lock lately: the daemon then keeps the
// transactions that only it needs (index drains) short.
func (t *turn) shared() bool {
	return t != nil && time.Since(time.Unix(0, t.waitedAt.Load())) < sharedFor
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
