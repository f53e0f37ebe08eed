package storetest

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/feedbridge/feedbridge/core"
)

// eraseScale is the size of the erasure the conformance test runs: one customer's 10,000 records.
const eraseScale = 10_000

var erasureScaleTests = map[string]func(t *testing.T, f *fixture){
	// TenThousandRecords erases one customer's 10,000 records (each with her name in the text and an
	// email-shaped dedup key) while another workspace keeps writing, and checks that all of them are erased
	// and that every write of the other workspace succeeds. How long either takes is BenchmarkErasure's to
	// measure (store/sqlite, store/postgres); the test only logs it.
	"TenThousandRecords": func(t *testing.T, f *fixture) {
		if testing.Short() {
			t.Skip("10,000 records")
		}
		// Under the race detector a tenth of the size.
		scale := eraseScale
		if raceDetector {
			scale = eraseScale / 10
		}
		ws, other := f.workspace("A", 0).ID, f.workspace("B", 0).ID
		noErr(t, "fill", fillCustomer(f.ctx, f.svc, f.st, ws, scale))
		w := startOtherWrites(f.ctx, f.svc, other)
		// The same writes without an erasure first, for the log's comparison.
		time.Sleep(2 * time.Second)
		base := w.phase()
		began := time.Now()
		got, err := f.svc.ForgetContact(f.ctx, ws, janeEmail)
		took := time.Since(began)
		during, werr := w.stop()
		noErr(t, "forget", err)
		noErr(t, "other workspace's write", werr)
		equal(t, "forgotten", got, core.Forgotten{Records: scale, Contacts: 1})
		t.Logf("erased %d records in %v; the other workspace's writes: without the erasure %s, during it %s",
			scale, took, summarize(base), summarize(during))
		sameSet(t, "search her name", f.searchIDs(ws, "jane roe"), nil)
		sameSet(t, "search her address", f.searchIDs(ws, janeEmail), nil)
		for _, r := range f.records(ws, core.RecordFeedback) { // a page of them, read back
			if mentions(r) {
				t.Fatalf("record %s still quotes her: %+v", r.ID, r)
			}
		}
		equal(t, "again changes nothing", f.forget(ws, janeEmail), core.Forgotten{})
	},
}

// fillCustomer files n feedback records of jane's in ws through the bulk path, each with her name in the
// title, her address in the description and an email-shaped dedup key, and has a store that indexes in
// the background (SQLite) index them now, so that an erasure after it is not measured beside that work.
func fillCustomer(ctx context.Context, svc *core.Service, st core.Store, ws core.ID, n int) error {
	subs := make([]core.Submission, 0, 1000)
	for i := range n {
		subs = append(subs, core.Submission{Type: core.RecordFeedback, Title: fmt.Sprintf("note %d from Jane Roe", i),
			Description: "Reply to jane.roe@acme.com about the export.", CustomerEmail: janeEmail, CustomerName: janeName,
			DedupKey: fmt.Sprintf("email:<%d@acme.com> <jane.roe@acme.com>", i), PlainText: true})
		if len(subs) == cap(subs) || i == n-1 {
			if _, err := svc.SubmitBatch(ctx, ws, subs); err != nil {
				return fmt.Errorf("bulk: %w", err)
			}
			subs = subs[:0]
		}
	}
	if fl, ok := st.(interface{ FlushIndex(context.Context) error }); ok {
		if err := fl.FlushIndex(ctx); err != nil {
			return fmt.Errorf("flush index: %w", err)
		}
	}
	return nil
}

// otherWrites is another workspace's traffic beside an erasure: single records with a new contact each,
// one 5 ms after the previous answer, each write's wait kept in the current phase.
type otherWrites struct {
	mu    sync.Mutex
	waits []time.Duration
	err   error
	quit  chan struct{}
	done  chan struct{}
}

func startOtherWrites(ctx context.Context, svc *core.Service, ws core.ID) *otherWrites {
	w := &otherWrites{quit: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(w.done)
		for i := 0; ; i++ {
			select {
			case <-w.quit:
				return
			default:
			}
			began := time.Now()
			_, err := svc.Submit(ctx, ws, core.Submission{Type: core.RecordFeedback, Title: fmt.Sprintf("other %d", i),
				CustomerEmail: fmt.Sprintf("c%d@globex.com", i)})
			w.mu.Lock()
			w.waits = append(w.waits, time.Since(began))
			w.err = err
			w.mu.Unlock()
			if err != nil {
				return
			}
			time.Sleep(5 * time.Millisecond)
		}
	}()
	return w
}

// phase returns the waits since the start or the last phase, and begins a new phase.
func (w *otherWrites) phase() []time.Duration {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := w.waits
	w.waits = nil
	return out
}

// stop ends the writes and returns the last phase's waits and the error that ended them early, if any.
func (w *otherWrites) stop() ([]time.Duration, error) {
	close(w.quit)
	<-w.done
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err != nil {
		return w.waits, fmt.Errorf("other workspace's write: %w", w.err)
	}
	return w.waits, nil
}

// summarize gives the count, median, 99th percentile and worst of some waits.
func summarize(waits []time.Duration) string {
	if len(waits) == 0 {
		return "no writes"
	}
	w := slices.Clone(waits)
	slices.Sort(w)
	p99, worst := tail(w)
	return fmt.Sprintf("%d writes, p50 %v, p99 %v, worst %v", len(w), w[len(w)/2].Round(time.Millisecond),
		p99.Round(time.Millisecond), worst.Round(time.Millisecond))
}
