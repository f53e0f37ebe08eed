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

// eraseScale is the size the erasure time limit is set at: one customer's 10,000 records.
const eraseScale = 10_000

var erasureScaleTests = map[string]func(t *testing.T, f *fixture){
	// TenThousandRecords erases one customer's 10,000 records (each with her name in the text and an
	// email-shaped dedup key) while another workspace keeps writing, and holds the store to the time
	// limits: the whole erasure within 10 s, and no write of the other workspace waiting long for it.
	"TenThousandRecords": func(t *testing.T, f *fixture) {
		if testing.Short() {
			t.Skip("10,000 records")
		}
		// Under the race detector a tenth of the size, and not held to the time limit.
		scale := eraseScale
		if raceDetector {
			scale = eraseScale / 10
		}
		ws, other := f.workspace("A", 0).ID, f.workspace("B", 0).ID
		subs := make([]core.Submission, 0, 1000)
		for i := 0; i < scale; i++ {
			subs = append(subs, core.Submission{Type: core.RecordFeedback, Title: fmt.Sprintf("note %d from Jane Roe", i),
				Description: "Reply to jane.roe@acme.com about the export.", CustomerEmail: janeEmail, CustomerName: janeName,
				DedupKey: fmt.Sprintf("email:<%d@acme.com> <jane.roe@acme.com>", i), PlainText: true})
			if len(subs) == cap(subs) {
				_, err := f.svc.SubmitBatch(f.ctx, ws, subs)
				noErr(t, "bulk", err)
				subs = subs[:0]
			}
		}
		// A store that indexes in the background (SQLite) does it now, so that what the other workspace
		// waits for below is the erasure, not the import before it.
		if fl, ok := f.st.(interface{ FlushIndex(context.Context) error }); ok {
			noErr(t, "flush index", fl.FlushIndex(f.ctx))
		}
		stop := make(chan struct{})
		var (
			wg    sync.WaitGroup
			mu    sync.Mutex
			waits []time.Duration
		)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				began := time.Now()
				_, err := f.svc.Submit(f.ctx, other, core.Submission{Type: core.RecordFeedback, Title: fmt.Sprintf("other %d", i),
					CustomerEmail: fmt.Sprintf("c%d@globex.com", i)})
				mu.Lock()
				waits = append(waits, time.Since(began))
				mu.Unlock()
				if err != nil {
					t.Errorf("other workspace's write: %v", err)
					return
				}
				time.Sleep(5 * time.Millisecond)
			}
		}()
		// The same writes without an erasure first, for a baseline on this machine at this moment.
		time.Sleep(2 * time.Second)
		mu.Lock()
		base := summarize(waits)
		waits = nil
		mu.Unlock()
		began := time.Now()
		got := f.forget(ws, janeEmail)
		took := time.Since(began)
		close(stop)
		wg.Wait()
		equal(t, "forgotten", got, core.Forgotten{Records: scale, Contacts: 1})
		t.Logf("erased %d records in %v; the other workspace's writes: without the erasure %s, during it %s",
			scale, took, base, summarize(waits))
		if took > 10*time.Second && !raceDetector {
			t.Errorf("erasure took %v, the limit is 10 s", took)
		}
		sameSet(t, "search", f.searchIDs(ws, "jane roe"), nil)
	},
}

// summarize gives the count, median, 99th percentile and worst of some waits.
func summarize(waits []time.Duration) string {
	if len(waits) == 0 {
		return "no writes"
	}
	w := slices.Clone(waits)
	slices.Sort(w)
	n := len(w)
	return fmt.Sprintf("%d writes, p50 %v, p99 %v, worst %v", n, w[n/2].Round(time.Millisecond),
		w[n*99/100].Round(time.Millisecond), w[n-1].Round(time.Millisecond))
}
