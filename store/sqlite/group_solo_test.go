package sqlite

import (
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// TestSoloWriteHasItsOwnTransaction: a solo write (an erasure's chunk) queued among others shares no
// transaction with them: the writes before it commit without waiting for it, and those after it start in
// a transaction of their own.
func TestSoloWriteHasItsOwnTransaction(t *testing.T) {
	st := openT(t, filepath.Join(t.TempDir(), "g.db"))
	ctx := t.Context()

	release := holdWriter(t, st)

	queued := []string{"a", "b", "solo", "c", "d"}
	commitsSeen := make([]int64, len(queued))
	errs := make([]error, len(queued))
	var wg sync.WaitGroup
	for i, name := range queued {
		wg.Go(func() {
			fn := func(*wtx) error {
				commitsSeen[i] = st.commits.Load()
				return nil
			}
			if name == "solo" {
				errs[i] = st.writeSolo(ctx, name, fn)
			} else {
				errs[i] = st.write(ctx, name, fn)
			}
		})
		for st.queueLen() < i+1 {
			time.Sleep(time.Millisecond)
		}
	}
	before := st.commits.Load()
	if err := release(); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("write %s: %v", queued[i], err)
		}
	}
	// hold's transaction, a and b together, solo alone, c and d together.
	if got := st.commits.Load() - before; got != 4 {
		t.Errorf("%d commits, want 4", got)
	}
	if commitsSeen[0] != commitsSeen[1] || commitsSeen[2] != commitsSeen[1]+1 || commitsSeen[3] != commitsSeen[2]+1 ||
		commitsSeen[4] != commitsSeen[3] {
		t.Errorf("commits counted as each write ran: %v for %v, want a and b in one transaction, solo in the next, c and d in the one after", commitsSeen, queued)
	}
}
