package storetest

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/feedbridge/feedbridge/core"
)

// queueUserTests hold the general queue's abilities that its pooled users need beside Queue (the fair
// claim, an explicit final failure, a worker's heartbeat and release, the kept listing), and that its three
// users (events, insight jobs, inbound deliveries) share one table without seeing each other's work.
var queueUserTests = map[string]func(t *testing.T, f *fixture){
	"ThreeUsersShareOneTable": func(t *testing.T, f *fixture) {
		ws := f.workspace("A", 0).ID
		ev := item(ws, "events:crm", "", "event")
		f.enqueue(ev)
		rec := f.feedback(ws, "slow export", "The export takes an hour.")
		d := f.deliver(ws, "webhook:forms", `{"n": 1}`)

		equal(t, "pending per queue", [3]int{f.stats("events:crm").Pending, f.stats(core.InsightQueue).Pending,
			f.stats(core.DeliveryQueue("webhook:forms")).Pending}, [3]int{1, 1, 1})
		// Each user's claim sees its own work only, whatever claim it uses.
		equal(t, "event claim", bodies(f.claimFair("events:crm", "w", 10)), []string{"event"})
		jobs := f.claim("w", 10, time.Minute)
		if len(jobs) != 1 || jobs[0].RecordID != rec.ID {
			t.Fatalf("insight claim: %+v", jobs)
		}
		ds := f.claimDeliveries("webhook:forms", "w", 10, time.Minute)
		if len(ds) != 1 || ds[0].ID != d.ID {
			t.Fatalf("delivery claim: %+v", ds)
		}
		// Each fails for good; the failed lists and their retries are per kind.
		noErr(t, "fail event", f.st.FailItem(f.ctx, ev, "w", "subscriber gone", time.Now(), true))
		noErr(t, "fail job", f.st.FailInsightJob(f.ctx, jobs[0], "w", "extractor down", time.Now(), true))
		noErr(t, "fail delivery", f.st.FailDelivery(f.ctx, ds[0], "w", "bad body", time.Now(), true))
		for kind, want := range map[string]string{"event": "subscriber gone", core.KindInsight: "extractor down",
			core.KindDelivery: "bad body"} {
			failed, err := f.st.FailedItems(f.ctx, kind, ws)
			noErr(t, "failed "+kind, err)
			if len(failed) != 1 || failed[0].LastError != want || failed[0].Kind != kind {
				t.Errorf("failed items of %s: %+v", kind, failed)
			}
		}
		n, err := f.st.RetryInsightJobs(f.ctx, ws, "")
		noErr(t, "retry insight jobs", err)
		equal(t, "insight jobs retried", n, 1)
		equal(t, "only the insight job is due again", [3]int{f.stats("events:crm").Failed, f.stats(core.InsightQueue).Pending,
			f.stats(core.DeliveryQueue("webhook:forms")).Failed}, [3]int{1, 1, 1})
	},
	"DeletedRecordTakesItsJobs": func(t *testing.T, f *fixture) {
		ws := f.workspace("A", 0).ID
		gone, failing, kept := f.feedback(ws, "one", "Export is slow."), f.feedback(ws, "two", "Import fails."),
			f.feedback(ws, "three", "Search is great.")
		for _, j := range f.claim("w", 10, time.Minute) {
			if j.RecordID == failing.ID {
				noErr(t, "fail for good", f.st.FailInsightJob(f.ctx, j, "w", "broken", time.Now(), true))
			} else {
				noErr(t, "release", f.st.ReleaseInsightJob(f.ctx, j, "w"))
			}
		}
		noErr(t, "delete queued", f.svc.Delete(f.ctx, ws, gone.ID))
		noErr(t, "delete failed", f.svc.Delete(f.ctx, ws, failing.ID))
		depth, err := f.st.InsightQueueDepth(f.ctx)
		noErr(t, "depth", err)
		equal(t, "jobs left (the kept record's)", depth, 1)
		failed, err := f.st.FailedInsightJobs(f.ctx, ws)
		noErr(t, "failed jobs", err)
		equal(t, "failed jobs of deleted records", len(failed), 0)
		jobs := f.claim("w", 10, time.Minute)
		if len(jobs) != 1 || jobs[0].RecordID != kept.ID {
			t.Fatalf("claim after the deletes: %+v", jobs)
		}
	},
	"FairClaimTakesTurns": func(t *testing.T, f *fixture) {
		a, b, c := f.workspace("A", 0).ID, f.workspace("B", 0).ID, f.workspace("C", 0).ID
		for _, body := range []string{"a0", "a1", "a2", "a3", "a4", "a5"} {
			f.enqueue(item(a, "jobs", "", body))
		}
		f.enqueue(item(b, "jobs", "", "b0"), item(c, "jobs", "", "c0"), item(c, "jobs", "", "c1"))
		// A's backlog is older, yet B and C are served in the first claim: one from each, then A again.
		first := bodies(f.claimFair("jobs", "w", 4))
		slices.Sort(first)
		equal(t, "first claim", first, []string{"a0", "a1", "b0", "c0"})
		// The next claim carries on where the last one ended, among the workspaces still with due items.
		next := bodies(f.claimFair("jobs", "w", 4))
		slices.Sort(next)
		equal(t, "second claim", next, []string{"a2", "a3", "a4", "c1"})
		equal(t, "pending", f.stats("jobs").Pending, 9)
	},
	"FairClaimKeepsKeyOrder": func(t *testing.T, f *fixture) {
		ws := f.workspace("A", 0).ID
		f.enqueue(item(ws, "jobs", "rec1", "first"), item(ws, "jobs", "rec1", "second"), item(ws, "jobs", "rec2", "other"))
		got := f.claimFair("jobs", "w", 10)
		equal(t, "one item per key while an earlier one is pending", bodies(got), []string{"first", "other"})
		noErr(t, "finish", f.st.FinishItem(f.ctx, got[0], "w"))
		equal(t, "the next of the key once the first is done", bodies(f.claimFair("jobs", "w", 10)), []string{"second"})
	},
	"FailItemAtOrForGood": func(t *testing.T, f *fixture) {
		ws := f.workspace("A", 0).ID
		f.enqueue(item(ws, "jobs", "", "later"), item(ws, "jobs", "", "never"))
		got := f.claimFair("jobs", "w", 10)
		wantErr(t, "fail by another worker", f.st.FailItem(f.ctx, got[0], "w2", "x", time.Now(), false), core.ErrConflict)
		noErr(t, "fail to retry later", f.st.FailItem(f.ctx, got[0], "w", "busy", time.Now().Add(time.Hour), false))
		noErr(t, "fail for good", f.st.FailItem(f.ctx, got[1], "w", "broken", time.Now(), true))
		equal(t, "nothing due", len(f.claimFair("jobs", "w", 10)), 0)
		equal(t, "stats", f.stats("jobs"), core.QueueStats{Pending: 1, Failed: 1})
		kept, err := f.st.KeptItems(f.ctx, "jobs", ws)
		noErr(t, "kept items", err)
		if len(kept) != 2 || kept[0].State != core.JobQueued || kept[0].LastError != "busy" || kept[0].Attempts != 1 ||
			kept[1].State != core.JobFailed || kept[1].LastError != "broken" {
			t.Fatalf("kept items: %+v", kept)
		}
		other, err := f.st.KeptItems(f.ctx, "jobs", f.workspace("B", 0).ID)
		noErr(t, "kept items of another workspace", err)
		equal(t, "kept items of another workspace", len(other), 0)
	},
	"HeartbeatAndRelease": func(t *testing.T, f *fixture) {
		ws := f.workspace("A", 0).ID
		f.enqueue(item(ws, "jobs", "", "1"), item(ws, "jobs", "", "2"), item(ws, "jobs", "", "3"), item(ws, "other", "", "4"))
		f.claimFair("other", "w", 10)
		got := f.claimFair("jobs", "w", 10)
		n, err := f.st.ExtendHeld(f.ctx, "jobs", "w", time.Hour)
		noErr(t, "extend", err)
		equal(t, "items extended (of that queue only)", n, 3)
		n, err = f.st.ExtendHeld(f.ctx, "jobs", "w2", time.Hour)
		noErr(t, "extend by another worker", err)
		equal(t, "items another worker extended", n, 0)
		n, err = f.st.ReleaseHeld(f.ctx, "jobs", "w", []core.ID{got[0].ID})
		noErr(t, "release", err)
		equal(t, "items released", n, 2)
		again := f.claimFair("jobs", "w2", 10)
		slices.SortFunc(again, func(x, y core.QueueItem) int { return strings.Compare(string(x.Body), string(y.Body)) })
		equal(t, "released items claimed again", bodies(again), []string{"2", "3"})
		equal(t, "a released claim is not an attempt", [2]int{again[0].Attempts, again[1].Attempts}, [2]int{1, 1})
		noErr(t, "the kept item is still the worker's", f.st.FinishItem(f.ctx, got[0], "w"))
	},
}

func (f *fixture) claimFair(q, worker string, n int) []core.QueueItem {
	f.t.Helper()
	its, err := f.st.ClaimFair(f.ctx, q, worker, n, time.Minute)
	noErr(f.t, "fair claim", err)
	return its
}
