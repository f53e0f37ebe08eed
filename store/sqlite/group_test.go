package sqlite

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/feedbridge/feedbridge/core"
)

// TestGroupStopsTakingWritesAfterItsBudget: writes queued together share one transaction while it is
// quick, but once a transaction has run groupBudget the writes it has not started go to the next one, in
// their order, and every write is answered once.
func TestGroupStopsTakingWritesAfterItsBudget(t *testing.T) {
	st := openT(t, filepath.Join(t.TempDir(), "g.db"))
	ctx := t.Context()

	release := holdWriter(t, st) // the others queue behind it

	var (
		mu    sync.Mutex
		order []string
	)
	wrote := func(name string) {
		mu.Lock()
		order = append(order, name)
		mu.Unlock()
	}
	queued := []string{"slow", "a", "b", "c"}
	errs := make([]error, len(queued))
	var wg sync.WaitGroup
	for i, name := range queued {
		wg.Go(func() {
			errs[i] = st.write(ctx, name, func(*wtx) error {
				if name == "slow" {
					time.Sleep(slowWrite)
				}
				wrote(name)
				return nil
			})
		})
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
			t.Errorf("write %s: %v", queued[i], err)
		}
	}
	if fmt.Sprint(order) != fmt.Sprint(queued) {
		t.Errorf("writes ran in the order %v, want %v", order, queued)
	}
	// hold's transaction, slow's (which ran past the budget), and a, b, c together.
	if got := st.commits.Load() - before; got != 3 {
		t.Errorf("%d commits, want 3: the slow write's group kept taking writes past its budget, or quick writes did not share one", got)
	}
}

// TestGroupAnswersWritesAbandonedWhileRequeued: a write sent back to the queue whose caller then leaves is
// never run, and the writes around it still are.
func TestGroupAnswersWritesAbandonedWhileRequeued(t *testing.T) {
	st := openT(t, filepath.Join(t.TempDir(), "g.db"))
	ctx := t.Context()
	gone, cancel := context.WithCancel(ctx)
	ran := make(chan string, 3)
	slowStarted := make(chan struct{})
	var wg sync.WaitGroup
	var slowErr, goneErr, lastErr error
	release := holdWriter(t, st)
	wg.Go(func() {
		slowErr = st.write(ctx, "slow", func(*wtx) error {
			close(slowStarted)
			time.Sleep(slowWrite)
			ran <- "slow"
			return nil
		})
	})
	for st.queueLen() < 1 {
		time.Sleep(time.Millisecond)
	}
	wg.Go(func() {
		goneErr = st.write(gone, "gone", func(*wtx) error { ran <- "gone"; return nil })
	})
	for st.queueLen() < 2 {
		time.Sleep(time.Millisecond)
	}
	wg.Go(func() {
		lastErr = st.write(ctx, "last", func(*wtx) error { ran <- "last"; return nil })
	})
	for st.queueLen() < 3 {
		time.Sleep(time.Millisecond)
	}
	if err := release(); err != nil {
		t.Fatal(err)
	}
	<-slowStarted
	cancel() // "gone" is queued or requeued now, never started
	wg.Wait()
	close(ran)
	var got []string
	for r := range ran {
		got = append(got, r)
	}
	if slowErr != nil || lastErr != nil {
		t.Fatalf("writes around the abandoned one failed: %v, %v", slowErr, lastErr)
	}
	if !errors.Is(goneErr, context.Canceled) {
		t.Errorf("the abandoned write returned %v, want context.Canceled", goneErr)
	}
	if fmt.Sprint(got) != "[slow last]" {
		t.Errorf("ran %v, want [slow last]", got)
	}
}

// TestIndexDrainsInShortTransactionsWhileShared: with the store to itself a drain moves the queue in one
// transaction; once a command has waited for the lock lately it moves it in chunks, each sized so that its
// statements take about indexTxTime, and the index ends up the same.
func TestIndexDrainsInShortTransactionsWhileShared(t *testing.T) {
	ctx := t.Context()
	for _, shared := range []bool{false, true} {
		// A command's store: no indexer of its own drains the queue meanwhile.
		st, err := open(ctx, filepath.Join(t.TempDir(), "i.db"), time.Second, ModeCommand)
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		ws := core.Workspace{ID: core.NewID(), Name: "i", Plan: core.PlanBusiness, CreatedAt: time.Now()}
		if err := st.CreateWorkspace(ctx, ws); err != nil {
			t.Fatal(err)
		}
		const n = 3*firstIndexChunk + 10
		batch := make([]core.NewRecord, 0, 1000)
		for i := range n {
			at := time.Now()
			title := fmt.Sprintf("export %d needle", i)
			batch = append(batch, core.NewRecord{ID: core.NewIDAt(at), Type: core.RecordFeedback, Title: title, SearchText: title,
				Status: core.StatusTriage, Source: "API", CreatedAt: at, UpdatedAt: at})
			if len(batch) == cap(batch) || i == n-1 {
				if _, err := st.CreateRecords(ctx, ws.ID, batch); err != nil {
					t.Fatal(err)
				}
				batch = batch[:0]
			}
		}
		if shared {
			st.turn.waitedAt.Store(time.Now().UnixNano())
		}
		st.indexChunk.Store(firstIndexChunk)
		before := st.commits.Load()
		if err := st.FlushIndex(ctx); err != nil {
			t.Fatal(err)
		}
		txs := st.commits.Load() - before
		var indexed, pending int
		if err := st.w.QueryRowContext(ctx, `SELECT (SELECT count(*) FROM records_fts),
			(SELECT count(*) FROM records_fts_pending)`).Scan(&indexed, &pending); err != nil {
			t.Fatal(err)
		}
		if indexed != n || pending != 0 {
			t.Errorf("shared=%v: %d indexed and %d still queued, want %d and 0", shared, indexed, pending, n)
		}
		switch {
		case !shared && txs != 1:
			t.Errorf("alone, the drain took %d transactions, want 1", txs)
		case shared && txs < 2:
			t.Errorf("shared, the drain of %d entries took %d transaction(s), want chunks of at most %d first", n, txs, firstIndexChunk)
		}
	}
}

func (s *Store) queueLen() int {
	s.qmu.Lock()
	defer s.qmu.Unlock()
	return len(s.queue)
}

// slowWrite is how long the tests' slow write takes: longer than a group's budget.
const slowWrite = groupBudget + 50*time.Millisecond

// holdWriter starts a write that holds the writer, so that the writes a test queues next wait behind it,
// until release is called; release returns that write's error once it has ended.
func holdWriter(t *testing.T, st *Store) (release func() error) {
	t.Helper()
	let, holding := make(chan struct{}), make(chan struct{})
	done := make(chan error, 1)
	go func() {
		done <- st.write(t.Context(), "hold", func(*wtx) error {
			close(holding)
			<-let
			return nil
		})
	}()
	<-holding
	return func() error {
		close(let)
		return <-done
	}
}
