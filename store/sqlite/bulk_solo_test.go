package sqlite

import (
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/feedbridge/feedbridge/core"
)

// TestLargeBulkWriteSharesNoTransaction: a bulk write of soloRecords records or more commits in a
// transaction of its own, never in a savepoint of a group, while the small writes queued around it still
// share theirs. In a savepoint SQLite would keep a copy of every page the bulk write changes.
func TestLargeBulkWriteSharesNoTransaction(t *testing.T) {
	st := openT(t, filepath.Join(t.TempDir(), "solo.db"))
	ctx := t.Context()
	ws := core.Workspace{ID: core.NewID(), Name: "s", Plan: core.PlanBusiness, CreatedAt: time.Now()}
	if err := st.CreateWorkspace(ctx, ws); err != nil {
		t.Fatal(err)
	}
	batch := make([]core.NewRecord, soloRecords)
	for i := range batch {
		at := time.Now()
		title := fmt.Sprintf("row %d", i)
		batch[i] = core.NewRecord{ID: core.NewIDAt(at), Type: core.RecordFeedback, Title: title, SearchText: title,
			Status: core.StatusTriage, Source: "CSV", CreatedAt: at, UpdatedAt: at}
	}

	release := holdWriter(t, st) // the others queue behind it
	var wg sync.WaitGroup
	errs := make([]error, 4)
	queue := []func() error{
		func() error { return st.write(ctx, "a", func(*wtx) error { return nil }) },
		func() error { _, err := st.CreateRecords(ctx, ws.ID, batch); return err },
		func() error { return st.write(ctx, "b", func(*wtx) error { return nil }) },
		func() error { return st.write(ctx, "c", func(*wtx) error { return nil }) },
	}
	for i, w := range queue {
		wg.Go(func() { errs[i] = w() })
		for st.queueLen() < i+1 { // queue them in this order
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
			t.Fatalf("write %d: %v", i, err)
		}
	}
	// hold's transaction, a's, the bulk write's, then b and c together.
	if got := st.commits.Load() - before; got != 4 {
		t.Errorf("%d commits, want 4: the bulk write shared a transaction, or the small writes behind it did not", got)
	}
}
