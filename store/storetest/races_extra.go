package storetest

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/feedbridge/feedbridge/core"
)

// parallel runs fn(i) for i in [0, n) at once and waits for all of them.
func parallel(n int, fn func(i int)) {
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			fn(i)
		}()
	}
	wg.Wait()
}

var raceTests = map[string]func(t *testing.T, f *fixture){
	// A Slack retry and the original, or two replicas reading the same mailbox, race with one dedup key.
	"ConcurrentSameDedupKey": func(t *testing.T, f *fixture) {
		ws := f.workspace("A", 0).ID
		const n = 12
		res := make([]core.Result, n)
		errs := make([]error, n)
		parallel(n, func(i int) {
			res[i], errs[i] = f.svc.Submit(f.ctx, ws, core.Submission{Type: core.RecordFeedback, Title: "from slack",
				Description: "twice", DedupKey: "slack:T1:C1:1.2"})
		})
		created := 0
		for i := range n {
			noErr(t, "submit", errs[i])
			equal(t, "every answer names the same record", res[i].Record.ID, res[0].Record.ID)
			if res[i].Created {
				created++
			}
		}
		equal(t, "records created", created, 1)
		equal(t, "stored", len(f.records(ws, core.RecordFeedback)), 1)
		depth, err := f.st.InsightQueueDepth(f.ctx)
		noErr(t, "depth", err)
		equal(t, "one insight job", depth, 1)
	},
	// Two imports of overlapping files at once (a retried schedule, two replicas before the lease settles).
	"ConcurrentOverlappingBulk": func(t *testing.T, f *fixture) {
		ws := f.workspace("A", 0).ID
		batch := func(from, to int) []core.Submission {
			var subs []core.Submission
			for i := from; i < to; i++ {
				subs = append(subs, core.Submission{Type: core.RecordFeedback, Title: title(i), DedupKey: fmt.Sprintf("row:%d", i),
					CustomerEmail: fmt.Sprintf("u%d@shared.com", i%5)})
			}
			return subs
		}
		const n = 4
		out := make([][]core.BatchResult, n)
		errs := make([]error, n)
		parallel(n, func(i int) { out[i], errs[i] = f.svc.SubmitBatch(f.ctx, ws, batch(i*20, i*20+60)) })
		owner := map[string]core.ID{}
		created := 0
		for i := range n {
			noErr(t, "batch", errs[i])
			for j, r := range out[i] {
				key := fmt.Sprintf("row:%d", i*20+j)
				if prev, ok := owner[key]; ok && prev != r.ID {
					t.Fatalf("%s answered with two ids: %s and %s", key, prev, r.ID)
				}
				owner[key] = r.ID
				if r.Created {
					created++
				}
			}
		}
		equal(t, "each key created once", created, len(owner))
		equal(t, "stored", len(f.records(ws, core.RecordFeedback)), len(owner))
		cs, err := f.st.Companies(f.ctx, ws)
		noErr(t, "companies", err)
		equal(t, "one company", len(cs), 1)
	},
	// The first feedback of a new customer, arriving through several paths at once.
	"ConcurrentNewCustomer": func(t *testing.T, f *fixture) {
		ws := f.workspace("A", 0).ID
		const n = 10
		res := make([]core.Result, n)
		errs := make([]error, n)
		parallel(n, func(i int) {
			res[i], errs[i] = f.svc.Submit(f.ctx, ws, core.Submission{Type: core.RecordFeedback, Title: title(i),
				CustomerEmail: "New.Person@Fresh-Co.com", CustomerName: fmt.Sprintf("Name %d", i)})
		})
		for i := range n {
			noErr(t, "submit", errs[i])
			equal(t, "one contact", res[i].Record.ContactID, res[0].Record.ContactID)
			equal(t, "one company", res[i].Record.CompanyID, res[0].Record.CompanyID)
			equal(t, "company name", res[i].Record.Customer, "Fresh Co")
		}
		cs, err := f.st.Companies(f.ctx, ws)
		noErr(t, "companies", err)
		equal(t, "companies", len(cs), 1)
	},
	// A lost race writes no event, insight job or history of the record it did not write.
	"ConcurrentSameKeyWritesOneEvent": sameKeyWritesOneEvent,
	// Workers of several replicas claim, and one dies: its job comes back exactly once.
	"ClaimAfterWorkerDeath": func(t *testing.T, f *fixture) {
		ws := f.workspace("A", 0).ID
		f.feedback(ws, "x", "needs insights")
		jobs, err := f.st.ClaimInsightJobs(f.ctx, "dead", 1, 50*time.Millisecond)
		noErr(t, "claim", err)
		equal(t, "claimed", len(jobs), 1)
		time.Sleep(120 * time.Millisecond)
		got := make([][]core.InsightJob, 8)
		parallel(len(got), func(i int) {
			var err error
			got[i], err = f.st.ClaimInsightJobs(f.ctx, fmt.Sprintf("w%d", i), 5, time.Minute)
			if err != nil {
				t.Errorf("claim: %v", err)
			}
		})
		total := 0
		for _, g := range got {
			total += len(g)
			for _, j := range g {
				equal(t, "second attempt", j.Attempts, 2)
			}
		}
		equal(t, "reclaimed once", total, 1)
	},
}
