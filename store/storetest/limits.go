package storetest

import (
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/feedbridge/feedbridge/core"
)

var idempotencyTests = map[string]func(t *testing.T, f *fixture){
	"ReplayAndConflict": func(t *testing.T, f *fixture) {
		a, b := f.workspace("A", 10), f.workspace("B", 0)
		sub := core.Submission{Type: core.RecordIdea, Title: "once", CountsAgainstLimit: true,
			Idempotency: &core.Idempotency{Key: "k1", Fingerprint: "fp1"}}
		first := f.submit(a.ID, sub)
		f.clock.Advance(23 * time.Hour)
		replay := f.submit(a.ID, sub)
		if replay.Created {
			t.Fatal("a replay created a record")
		}
		equal(t, "replay returns the first record", replay.Record, first.Record)
		w, err := f.st.Workspace(f.ctx, a.ID)
		noErr(t, "workspace", err)
		equal(t, "a replay does not count against the limit", w.IdeasUsed, 1)

		conflict := sub
		conflict.Idempotency = &core.Idempotency{Key: "k1", Fingerprint: "fp2"}
		_, err = f.svc.Submit(f.ctx, a.ID, conflict)
		wantErr(t, "same key, other request", err, core.ErrIdempotencyConflict)

		theirs := f.submit(b.ID, sub)
		if !theirs.Created || theirs.Record.ID == first.Record.ID {
			t.Fatal("idempotency keys leak across workspaces")
		}
		f.clock.Advance(2 * time.Hour) // 25 h after the first use: the key is free again
		later := f.submit(a.ID, conflict)
		if !later.Created || later.Record.ID == first.Record.ID {
			t.Fatal("an expired key still replays")
		}
		equal(t, "A's ideas", len(f.records(a.ID, core.RecordIdea)), 2)
	},
	"ConcurrentSameKey": func(t *testing.T, f *fixture) {
		ws := f.workspace("A", 0).ID
		sub := core.Submission{Type: core.RecordFeedback, Title: "race", Description: "same request",
			Idempotency: &core.Idempotency{Key: "race", Fingerprint: "fp"}}
		const n = 12
		results := make([]core.Result, n)
		errs := make([]error, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				results[i], errs[i] = f.svc.Submit(f.ctx, ws, sub)
			}()
		}
		wg.Wait()
		created := 0
		for i := range n {
			noErr(t, "concurrent submit", errs[i])
			if results[i].Created {
				created++
			}
			equal(t, "every answer names the same record", results[i].Record.ID, results[0].Record.ID)
		}
		equal(t, "records created", created, 1)
		equal(t, "stored records", len(f.records(ws, core.RecordFeedback)), 1)
		depth, err := f.st.InsightQueueDepth(f.ctx)
		noErr(t, "depth", err)
		equal(t, "one insight job", depth, 1)
	},
}

var ideaLimitTests = map[string]func(t *testing.T, f *fixture){
	"ConcurrentCreatesNeverOvershoot": func(t *testing.T, f *fixture) {
		ws := f.workspace("A", 10)
		const n = 30
		errs := make([]error, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, errs[i] = f.svc.Submit(f.ctx, ws.ID, core.Submission{Type: core.RecordIdea, Title: title(i), CountsAgainstLimit: true})
			}()
		}
		wg.Wait()
		ok, limited := 0, 0
		for _, err := range errs {
			var le *core.IdeaLimitError
			switch {
			case err == nil:
				ok++
			case errors.As(err, &le):
				limited++
				equal(t, "limit error numbers", *le, core.IdeaLimitError{Used: 10, Limit: 10, Plan: core.PlanPro})
				wantErr(t, "limit error", err, core.ErrIdeaLimit)
			default:
				t.Fatalf("unexpected error: %v", err)
			}
		}
		equal(t, "successes and refusals", [2]int{ok, limited}, [2]int{10, 20})
		equal(t, "stored ideas", len(f.records(ws.ID, core.RecordIdea)), 10)
		w, err := f.st.Workspace(f.ctx, ws.ID)
		noErr(t, "workspace", err)
		equal(t, "ideas used", w.IdeasUsed, 10)
	},
	"UnlimitedAndUncounted": func(t *testing.T, f *fixture) {
		unlimited := f.workspace("U", 0)
		for i := range 3 {
			f.submit(unlimited.ID, core.Submission{Type: core.RecordIdea, Title: title(i), CountsAgainstLimit: true})
		}
		w, err := f.st.Workspace(f.ctx, unlimited.ID)
		noErr(t, "workspace", err)
		equal(t, "unlimited workspace still counts", w.IdeasUsed, 3)
		limited := f.workspace("L", 1)
		f.submit(limited.ID, core.Submission{Type: core.RecordIdea, Title: "counted", CountsAgainstLimit: true})
		f.submit(limited.ID, core.Submission{Type: core.RecordIdea, Title: "not counted (e.g. an import)"})
		f.submit(limited.ID, core.Submission{Type: core.RecordFeedback, Title: "feedback"})
		_, err = f.svc.Submit(f.ctx, limited.ID, core.Submission{Type: core.RecordIdea, Title: "over", CountsAgainstLimit: true})
		wantErr(t, "over the limit", err, core.ErrIdeaLimit)
		raised := 2
		_, err = f.svc.UpdateWorkspace(f.ctx, limited.ID, core.WorkspaceUpdate{IdeaLimit: &raised})
		noErr(t, "raise limit", err)
		f.submit(limited.ID, core.Submission{Type: core.RecordIdea, Title: "after raise", CountsAgainstLimit: true})
	},
}
