package storetest

import (
	"errors"
	"testing"
	"time"

	"github.com/feedbridge/feedbridge/core"
)

// item is a queue item of kind "event" for ws on queue q, ordered by key.
func item(ws core.ID, q, key, body string) core.QueueItem {
	return core.QueueItem{ID: core.NewID(), Queue: q, Kind: "event", Workspace: ws, Key: key, Body: []byte(body)}
}

func (f *fixture) enqueue(items ...core.QueueItem) {
	f.t.Helper()
	noErr(f.t, "enqueue", f.st.EnqueueItems(f.ctx, items))
}

func (f *fixture) claimItems(q, worker string, n int, lease time.Duration) []core.QueueItem {
	f.t.Helper()
	its, err := f.st.ClaimItems(f.ctx, q, worker, n, lease)
	if err != nil {
		f.t.Fatalf("claim queue items: %v", err)
	}
	return its
}

// bodies are the items' bodies, for comparing claims in order.
func bodies(its []core.QueueItem) []string {
	out := make([]string, 0, len(its))
	for _, it := range its {
		out = append(out, string(it.Body))
	}
	return out
}

func (f *fixture) stats(q string) core.QueueStats {
	f.t.Helper()
	st, err := f.st.QueueStats(f.ctx, q)
	noErr(f.t, "queue stats", err)
	return st
}

var queueTests = map[string]func(t *testing.T, f *fixture){
	"PendingQueues": func(t *testing.T, f *fixture) {
		ws, ws2 := f.workspace("A", 0).ID, f.workspace("B", 0).ID
		other := item(ws, "notify:x", "", "n")
		other.Kind = "notify"
		f.enqueue(item(ws, "events:b", "", "1"), item(ws, "events:a", "", "2"), item(ws, "events:c", "", "3"), other,
			item(ws2, "events:z", "", "4"))
		gone := f.claimItems("events:c", "w", 1, time.Minute)[0]
		failed, err := f.st.RetryItem(f.ctx, gone, "w", "no", 48*time.Hour)
		noErr(t, "give up", err)
		equal(t, "given up", failed, true)
		f.claimItems("events:a", "w", 1, time.Minute) // running counts as pending
		qs, err := f.st.PendingQueues(f.ctx, "event", ws)
		noErr(t, "pending queues", err)
		equal(t, "queues with pending events, sorted, without the failed-only one", qs, []string{"events:a", "events:b"})
		qs, err = f.st.PendingQueues(f.ctx, "event", "")
		noErr(t, "pending queues of all workspaces", err)
		equal(t, "every workspace's", qs, []string{"events:a", "events:b", "events:z"})
		qs, err = f.st.PendingQueues(f.ctx, "nothing", "")
		noErr(t, "pending queues of an unused kind", err)
		equal(t, "none", qs, []string{})
	},
	"EnqueueClaimFinish": func(t *testing.T, f *fixture) {
		ws := f.workspace("A", 0).ID
		first, second := item(ws, "events:crm", "", "1"), item(ws, "events:crm", "", "2")
		first.RetryFor = time.Hour
		f.enqueue(first, second, item(ws, "events:other", "", "3"))
		before := time.Now()

		got := f.claimItems("events:crm", "w1", 5, time.Minute)
		equal(t, "claimed in enqueue order", bodies(got), []string{"1", "2"})
		it := got[0]
		equal(t, "claimed item", [6]string{string(it.ID), it.Queue, it.Kind, string(it.Workspace), it.State, it.LeasedBy},
			[6]string{string(first.ID), "events:crm", "event", string(ws), core.JobRunning, "w1"})
		equal(t, "attempts", it.Attempts, 1)
		equal(t, "retry_for kept", it.RetryFor, time.Hour)
		equal(t, "retry_for defaults", got[1].RetryFor, core.DefaultRetryFor)
		if d := it.GiveUpAt.Sub(it.CreatedAt); d != time.Hour {
			t.Errorf("give-up time is %s after enqueueing, want 1h", d)
		}
		if it.LeaseUntil.Before(before.Add(50*time.Second)) || it.LeaseUntil.After(time.Now().Add(70*time.Second)) {
			t.Errorf("lease until %s, want about a minute from %s", it.LeaseUntil, before)
		}
		equal(t, "nothing more is due", len(f.claimItems("events:crm", "w2", 5, time.Minute)), 0)
		equal(t, "stats while running", f.stats("events:crm"), core.QueueStats{Pending: 2})

		wantErr(t, "finish by another worker", f.st.FinishItem(f.ctx, it, "w2"), core.ErrConflict)
		noErr(t, "finish", f.st.FinishItem(f.ctx, it, "w1"))
		wantErr(t, "finish twice", f.st.FinishItem(f.ctx, it, "w1"), core.ErrConflict)
		equal(t, "stats after finishing one", f.stats("events:crm"), core.QueueStats{Pending: 1})
		equal(t, "the other queue is untouched", bodies(f.claimItems("events:other", "w1", 5, time.Minute)), []string{"3"})
	},
	"FinishItemsRemovesOnlyHeldOnes": func(t *testing.T, f *fixture) {
		ws, ws2 := f.workspace("A", 0).ID, f.workspace("B", 0).ID
		f.enqueue(item(ws, "events:crm", "", "1"), item(ws, "events:crm", "", "2"), item(ws2, "events:crm", "", "3"),
			item(ws, "events:crm", "", "4"))
		mine := f.claimItems("events:crm", "w1", 3, time.Minute)
		theirs := f.claimItems("events:crm", "w2", 1, time.Minute)
		equal(t, "claimed", bodies(append(mine, theirs...)), []string{"1", "2", "3", "4"})
		done, err := f.st.FinishItems(f.ctx, nil, "w1")
		noErr(t, "finish none", err)
		equal(t, "none finished", len(done), 0)
		finishedBefore := mine[1]
		noErr(t, "finish one alone", f.st.FinishItem(f.ctx, finishedBefore, "w1"))
		done, err = f.st.FinishItems(f.ctx, []core.QueueItem{mine[2], theirs[0], finishedBefore, mine[0]}, "w1")
		noErr(t, "finish several", err)
		equal(t, "only the items w1 still held are finished", done, []bool{true, false, false, true})
		equal(t, "what is left", f.stats("events:crm"), core.QueueStats{Pending: 1})
		noErr(t, "the other holder's item is still its own", f.st.FinishItem(f.ctx, theirs[0], "w2"))
	},
	"EnqueueIsIdempotentPerQueue": func(t *testing.T, f *fixture) {
		ws := f.workspace("A", 0).ID
		a := item(ws, "events:one", "", "a")
		again := a
		again.Body = []byte("changed")
		fanned := a
		fanned.Queue = "events:two"
		f.enqueue(a, again, fanned)
		f.enqueue(a)
		equal(t, "one item per (queue, id)", bodies(f.claimItems("events:one", "w", 5, time.Minute)), []string{"a"})
		two := f.claimItems("events:two", "w", 5, time.Minute)
		if len(two) != 1 || two[0].ID != a.ID {
			t.Fatalf("the same id on another queue: %+v", two)
		}
	},
	"InvalidItemWritesNothing": func(t *testing.T, f *fixture) {
		ws := f.workspace("A", 0).ID
		cases := []struct {
			field string
			edit  func(*core.QueueItem)
		}{
			{"id", func(it *core.QueueItem) { it.ID = "" }},
			{"queue", func(it *core.QueueItem) { it.Queue = "" }},
			{"kind", func(it *core.QueueItem) { it.Kind = "" }},
			{"workspace", func(it *core.QueueItem) { it.Workspace = "" }},
			{"retry_for", func(it *core.QueueItem) { it.RetryFor = -time.Second }},
		}
		for _, c := range cases {
			t.Run(c.field, func(t *testing.T) {
				bad := item(ws, "events:q", "", "bad")
				c.edit(&bad)
				err := f.st.EnqueueItems(f.ctx, []core.QueueItem{item(ws, "events:q", "", "good"), bad})
				var ve *core.ValidationError
				if !errors.As(err, &ve) || ve.Field != c.field {
					t.Fatalf("got %v, want a validation error naming %s", err, c.field)
				}
				equal(t, "nothing written", f.stats("events:q"), core.QueueStats{})
			})
		}
	},
	"RetryWithDelayThenGiveUp": func(t *testing.T, f *fixture) {
		ws := f.workspace("A", 0).ID
		it := item(ws, "events:q", "", "x")
		it.RetryFor = time.Hour
		f.enqueue(it)
		c := f.claimItems("events:q", "w1", 1, time.Minute)[0]

		failed, err := f.st.RetryItem(f.ctx, c, "w1", "503 Service Unavailable", time.Minute)
		noErr(t, "retry in a minute", err)
		equal(t, "still retried", failed, false)
		_, err = f.st.RetryItem(f.ctx, c, "w1", "again", 0)
		wantErr(t, "retry when no longer held", err, core.ErrConflict)
		equal(t, "not due before its retry time", len(f.claimItems("events:q", "w1", 1, time.Minute)), 0)
		equal(t, "pending while waiting", f.stats("events:q"), core.QueueStats{Pending: 1})

		// A Retry-After of zero (or a retry now) makes it due at once.
		it2 := item(ws, "events:q2", "", "y")
		it2.RetryFor = time.Hour
		f.enqueue(it2)
		c = f.claimItems("events:q2", "w1", 1, time.Minute)[0]
		_, err = f.st.RetryItem(f.ctx, c, "w1", "timeout", 0)
		noErr(t, "retry now", err)
		c = f.claimItems("events:q2", "w1", 1, time.Minute)[0]
		equal(t, "second attempt", [2]any{c.Attempts, c.LastError}, [2]any{2, "timeout"})

		// A retry that would come after the give-up time keeps the item as failed.
		failed, err = f.st.RetryItem(f.ctx, c, "w1", "410 Gone", 2*time.Hour)
		noErr(t, "retry past give-up", err)
		equal(t, "given up", failed, true)
		equal(t, "a failed item is not claimed", len(f.claimItems("events:q2", "w1", 1, time.Minute)), 0)
		equal(t, "stats", f.stats("events:q2"), core.QueueStats{Failed: 1})
		kept, err := f.st.FailedItems(f.ctx, "event", ws)
		noErr(t, "failed items", err)
		if len(kept) != 1 || kept[0].ID != it2.ID || kept[0].LastError != "410 Gone" || string(kept[0].Body) != "y" ||
			kept[0].State != core.JobFailed || kept[0].Attempts != 2 {
			t.Fatalf("failed items: %+v", kept)
		}
	},
	"RetryFailedRequeuesWithFreshGiveUp": func(t *testing.T, f *fixture) {
		a, b := f.workspace("A", 0).ID, f.workspace("B", 0).ID
		give := func(ws core.ID, q, body string) core.QueueItem {
			it := item(ws, q, "", body)
			it.RetryFor = time.Hour
			f.enqueue(it)
			c := f.claimItems(q, "w", 1, time.Minute)[0]
			if failed, err := f.st.RetryItem(f.ctx, c, "w", "down", 2*time.Hour); err != nil || !failed {
				t.Fatalf("give up %s: %v, %v", body, failed, err)
			}
			return it
		}
		a1, a2 := give(a, "events:a", "a1"), give(a, "events:a", "a2")
		give(b, "events:b", "b1")
		other := core.QueueItem{ID: core.NewID(), Queue: "jobs:x", Kind: "job", Workspace: a, Body: []byte("j")}
		f.enqueue(other)

		_, err := f.st.RetryFailedItems(f.ctx, "event", b, a1.ID)
		wantErr(t, "another workspace's item", err, core.ErrNotFound)
		_, err = f.st.RetryFailedItems(f.ctx, "event", a, core.NewID())
		wantErr(t, "a missing item", err, core.ErrNotFound)
		_, err = f.st.RetryFailedItems(f.ctx, "job", a, a1.ID)
		wantErr(t, "another kind", err, core.ErrNotFound)

		n, err := f.st.RetryFailedItems(f.ctx, "event", a, a1.ID)
		noErr(t, "retry one", err)
		equal(t, "retried", n, 1)
		c := f.claimItems("events:a", "w", 5, time.Minute)
		equal(t, "claimable again", bodies(c), []string{"a1"})
		equal(t, "fresh attempts", c[0].Attempts, 1)
		if c[0].GiveUpAt.Before(time.Now().Add(50 * time.Minute)) {
			t.Errorf("give-up time %s was not renewed", c[0].GiveUpAt)
		}
		failedA, err := f.st.FailedItems(f.ctx, "event", a)
		noErr(t, "failed of A", err)
		equal(t, "A's failed item left", len(failedA), 1)
		equal(t, "A's failed item", failedA[0].ID, a2.ID)
		all, err := f.st.FailedItems(f.ctx, "event", "")
		noErr(t, "failed of all", err)
		equal(t, "failed of every workspace", len(all), 2)
		none, err := f.st.FailedItems(f.ctx, "job", "")
		noErr(t, "failed jobs", err)
		equal(t, "another kind's failed items", len(none), 0)

		n, err = f.st.RetryFailedItems(f.ctx, "event", "", "")
		noErr(t, "retry all", err)
		equal(t, "retried all", n, 2)
		equal(t, "A's", bodies(f.claimItems("events:a", "w", 5, time.Minute)), []string{"a2"})
		equal(t, "B's", bodies(f.claimItems("events:b", "w", 5, time.Minute)), []string{"b1"})
	},
	"ReleaseGivesBackUntouched": func(t *testing.T, f *fixture) {
		ws := f.workspace("A", 0).ID
		f.enqueue(item(ws, "events:q", "", "x"))
		c := f.claimItems("events:q", "w1", 1, time.Minute)[0]
		wantErr(t, "release by another", f.st.ReleaseItem(f.ctx, c, "w2"), core.ErrConflict)
		noErr(t, "release", f.st.ReleaseItem(f.ctx, c, "w1"))
		again := f.claimItems("events:q", "w2", 1, time.Minute)
		if len(again) != 1 || again[0].Attempts != 1 || again[0].LeasedBy != "w2" {
			t.Fatalf("after release: %+v", again)
		}
	},
	"ExpiredLeaseIsTakenOver": func(t *testing.T, f *fixture) {
		ws := f.workspace("A", 0).ID
		f.enqueue(item(ws, "events:q", "", "x"))
		c := f.claimItems("events:q", "dead", 1, 50*time.Millisecond)[0]
		equal(t, "leased", len(f.claimItems("events:q", "w2", 1, time.Minute)), 0)
		time.Sleep(120 * time.Millisecond)
		again := f.claimItems("events:q", "w2", 1, time.Minute)
		if len(again) != 1 || again[0].ID != c.ID || again[0].Attempts != 2 {
			t.Fatalf("the item of a worker that died was not taken over: %+v", again)
		}
		wantErr(t, "the old holder's finish", f.st.FinishItem(f.ctx, c, "dead"), core.ErrConflict)
		noErr(t, "the new holder's finish", f.st.FinishItem(f.ctx, again[0], "w2"))
	},
	"NoClaimOfNothing": func(t *testing.T, f *fixture) {
		ws := f.workspace("A", 0).ID
		f.enqueue(item(ws, "events:q", "", "x"))
		equal(t, "n=0", len(f.claimItems("events:q", "w", 0, time.Minute)), 0)
		equal(t, "unknown queue", len(f.claimItems("events:none", "w", 5, time.Minute)), 0)
		equal(t, "unknown queue stats", f.stats("events:none"), core.QueueStats{})
	},
}
