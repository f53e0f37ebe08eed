package storetest

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/feedbridge/feedbridge/core"
)

// deliver queues a webhook delivery through the service and fails the test on an error.
func (f *fixture) deliver(ws core.ID, entry, body string) core.Delivery {
	f.t.Helper()
	d, err := f.svc.QueueDelivery(f.ctx, ws, entry, []byte(body))
	if err != nil {
		f.t.Fatalf("queue delivery: %v", err)
	}
	return d
}

func (f *fixture) claimDeliveries(entry, worker string, n int, lease time.Duration) []core.Delivery {
	f.t.Helper()
	ds, err := f.st.ClaimDeliveries(f.ctx, entry, worker, n, lease)
	if err != nil {
		f.t.Fatalf("claim deliveries: %v", err)
	}
	return ds
}

func (f *fixture) kept(ws core.ID, entry string) []core.Delivery {
	f.t.Helper()
	ds, err := f.st.Deliveries(f.ctx, ws, entry)
	if err != nil {
		f.t.Fatalf("list deliveries: %v", err)
	}
	return ds
}

var deliveryTests = map[string]func(t *testing.T, f *fixture){
	"QueueClaimFinish": func(t *testing.T, f *fixture) {
		a, b := f.workspace("A", 0).ID, f.workspace("B", 0).ID
		first := f.deliver(a, "crm", `{"id": 1}`)
		f.clock.Advance(time.Millisecond)
		second := f.deliver(a, "crm", `{"id": 2}`)
		f.deliver(b, "forms", `{"id": 3}`)

		got := f.claimDeliveries("crm", "w1", 5, time.Minute)
		if len(got) != 2 {
			t.Fatalf("claimed %d deliveries of crm, want 2: %+v", len(got), got)
		}
		d := got[0]
		equal(t, "claimed delivery", [6]string{string(d.ID), string(d.Workspace), d.Entry, string(d.Body), d.State, d.LeasedBy},
			[6]string{string(first.ID), string(a), "crm", `{"id": 1}`, core.JobRunning, "w1"})
		equal(t, "attempts", d.Attempts, 1)
		equal(t, "received time kept", d.CreatedAt, first.CreatedAt)
		equal(t, "oldest first", got[1].ID, second.ID)
		equal(t, "nothing more is due", len(f.claimDeliveries("crm", "w2", 5, time.Minute)), 0)

		wantErr(t, "finish by another worker", f.st.FinishDelivery(f.ctx, d, "w2"), core.ErrConflict)
		noErr(t, "finish", f.st.FinishDelivery(f.ctx, d, "w1"))
		wantErr(t, "finish twice", f.st.FinishDelivery(f.ctx, d, "w1"), core.ErrConflict)
		left := f.kept(a, "crm")
		equal(t, "kept after finishing one", len(left), 1)
		equal(t, "the other is kept", left[0].ID, second.ID)
		equal(t, "another workspace's entry sees none of them", len(f.kept(b, "crm")), 0)
		equal(t, "the other entry's delivery", len(f.kept(b, "forms")), 1)
	},
	"FailRetryAndKeep": func(t *testing.T, f *fixture) {
		ws := f.workspace("A", 0).ID
		f.deliver(ws, "crm", `{}`)
		d := f.claimDeliveries("crm", "w1", 1, time.Minute)[0]
		noErr(t, "fail, retry later", f.st.FailDelivery(f.ctx, d, "w1", "store busy", time.Now().Add(300*time.Millisecond), false))
		wantErr(t, "fail when no longer held", f.st.FailDelivery(f.ctx, d, "w1", "x", time.Now(), false), core.ErrConflict)
		equal(t, "not due before its retry time", len(f.claimDeliveries("crm", "w1", 1, time.Minute)), 0)
		k := f.kept(ws, "crm")[0]
		equal(t, "requeued", [2]string{k.State, k.LastError}, [2]string{core.JobQueued, "store busy"})

		time.Sleep(400 * time.Millisecond)
		d = f.claimDeliveries("crm", "w1", 1, time.Minute)[0]
		equal(t, "second attempt", d.Attempts, 2)
		noErr(t, "fail for good", f.st.FailDelivery(f.ctx, d, "w1", "workspace suspended", time.Now(), true))
		equal(t, "a failed delivery is not claimed", len(f.claimDeliveries("crm", "w1", 1, time.Minute)), 0)
		k = f.kept(ws, "crm")[0]
		equal(t, "kept as failed with its error", [3]string{k.State, k.LastError, string(k.Body)},
			[3]string{core.JobFailed, "workspace suspended", `{}`})
	},
	"ExpiredLeaseIsTakenOver": func(t *testing.T, f *fixture) {
		ws := f.workspace("A", 0).ID
		f.deliver(ws, "crm", `{}`)
		d := f.claimDeliveries("crm", "dead", 1, 50*time.Millisecond)[0]
		equal(t, "leased", len(f.claimDeliveries("crm", "w2", 1, time.Minute)), 0)
		time.Sleep(120 * time.Millisecond)
		again := f.claimDeliveries("crm", "w2", 1, time.Minute)
		if len(again) != 1 || again[0].ID != d.ID || again[0].Attempts != 2 {
			t.Fatalf("the delivery of a worker that died was not taken over: %+v", again)
		}
		wantErr(t, "the old holder's finish", f.st.FinishDelivery(f.ctx, d, "dead"), core.ErrConflict)
		noErr(t, "the new holder's finish", f.st.FinishDelivery(f.ctx, again[0], "w2"))
	},
	"ConcurrentClaimsShareNothing": func(t *testing.T, f *fixture) {
		ws := f.workspace("A", 0).ID
		const n = 12
		for i := range n {
			f.deliver(ws, "crm", fmt.Sprintf(`{"id": %d}`, i))
		}
		var (
			mu   sync.Mutex
			seen = map[core.ID]int{}
			wg   sync.WaitGroup
		)
		for w := range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for {
					ds, err := f.st.ClaimDeliveries(f.ctx, "crm", fmt.Sprint("w", w), 2, time.Minute)
					if err != nil {
						t.Errorf("claim: %v", err)
						return
					}
					if len(ds) == 0 {
						return
					}
					mu.Lock()
					for _, d := range ds {
						seen[d.ID]++
					}
					mu.Unlock()
				}
			}()
		}
		wg.Wait()
		equal(t, "deliveries claimed", len(seen), n)
		for id, c := range seen {
			equal(t, "claims of "+string(id), c, 1)
		}
	},
	"MissingWorkspaceIsRefused": func(t *testing.T, f *fixture) {
		err := f.st.QueueDelivery(f.ctx, core.Delivery{ID: core.NewID(), Workspace: core.NewID(), Entry: "crm",
			Body: []byte(`{}`), RunAt: time.Now(), CreatedAt: time.Now(), UpdatedAt: time.Now()})
		wantErr(t, "queue into a missing workspace", err, core.ErrNotFound)
	},
}
