package queueworker_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/feedbridge/feedbridge/core"
	"github.com/feedbridge/feedbridge/internal/queueworker"
	"github.com/feedbridge/feedbridge/internal/storekit"
)

// stores runs fn on each kind of store.
func stores(t *testing.T, fn func(t *testing.T, q core.Queue)) {
	storekit.Each(t, func(t *testing.T, st core.Store) { fn(t, st) })
}

const ws = core.ID("0123456789abcdef01234567")

func enqueue(t *testing.T, q core.Queue, queue string, keys ...string) []core.ID {
	t.Helper()
	var ids []core.ID
	var items []core.QueueItem
	for i, k := range keys {
		id := core.NewID()
		ids = append(ids, id)
		items = append(items, core.QueueItem{ID: id, Queue: queue, Kind: "test", Workspace: ws, Key: k,
			Body: fmt.Appendf(nil, "%s-%d", k, i), RetryFor: time.Hour})
	}
	if err := q.EnqueueItems(context.Background(), items); err != nil {
		t.Fatal(err)
	}
	return ids
}

type recorder struct {
	mu       sync.Mutex
	outcomes map[core.ID][]queueworker.Outcome
}

func (r *recorder) Settled(it core.QueueItem, o queueworker.Outcome, _ error, _ time.Duration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.outcomes == nil {
		r.outcomes = map[core.ID][]queueworker.Outcome{}
	}
	r.outcomes[it.ID] = append(r.outcomes[it.ID], o)
}

func (r *recorder) count(o queueworker.Outcome) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, os := range r.outcomes {
		for _, x := range os {
			if x == o {
				n++
			}
		}
	}
	return n
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); !cond(); {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// Items of one key are handled one at a time and in order even with many in flight, and the concurrency
// limit holds.
func TestOrderAndConcurrency(t *testing.T) {
	stores(t, func(t *testing.T, q core.Queue) {
		var keys []string
		for i := range 60 {
			keys = append(keys, fmt.Sprintf("k%d", i%6))
		}
		enqueue(t, q, "q", keys...)
		var (
			mu       sync.Mutex
			seen     = map[string][]string{}
			inflight atomic.Int32
			peak     atomic.Int32
			perKey   sync.Map
		)
		h := func(ctx context.Context, it core.QueueItem) error {
			n := inflight.Add(1)
			defer inflight.Add(-1)
			for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
			}
			if _, busy := perKey.LoadOrStore(it.Key, true); busy {
				t.Errorf("two items of key %s in flight at once", it.Key)
			}
			time.Sleep(3 * time.Millisecond)
			perKey.Delete(it.Key)
			mu.Lock()
			seen[it.Key] = append(seen[it.Key], string(it.Body))
			mu.Unlock()
			return nil
		}
		rec := &recorder{}
		w, err := queueworker.New(q, h, queueworker.Config{Queue: "q", Holder: "h1", Concurrency: 3, Poll: 20 * time.Millisecond, Observer: rec})
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() { w.Run(ctx); close(done) }()
		waitFor(t, "every item done", func() bool { return rec.count(queueworker.Done) == 60 })
		cancel()
		<-done
		if p := peak.Load(); p > 3 || p < 2 {
			t.Errorf("peak concurrency %d, want 2..3", p)
		}
		for i := range 6 {
			k := fmt.Sprintf("k%d", i)
			for j, b := range seen[k] {
				if want := fmt.Sprintf("%s-%d", k, i+6*j); b != want {
					t.Fatalf("key %s: item %d was %s, want %s (order %v)", k, j, b, want, seen[k])
				}
			}
		}
		st, err := q.QueueStats(context.Background(), "q")
		if err != nil || st.Pending != 0 || st.Failed != 0 {
			t.Fatalf("stats after drain: %+v, %v", st, err)
		}
	})
}

// An error retries after the delay (Retry-After wins over the backoff), a permanent error keeps the item
// as failed at once, and a handler cut short by shutdown gives its item back untouched.
func TestRetryFailRelease(t *testing.T) {
	stores(t, func(t *testing.T, q core.Queue) {
		ids := enqueue(t, q, "q", "a", "b", "c")
		var delays sync.Map
		var tries sync.Map
		release := make(chan struct{})
		h := func(ctx context.Context, it core.QueueItem) error {
			n, _ := tries.LoadOrStore(it.ID, new(atomic.Int32))
			k := n.(*atomic.Int32).Add(1)
			switch it.ID {
			case ids[0]:
				if k == 1 {
					return queueworker.RetryAfter(errors.New("503 busy"), 50*time.Millisecond)
				}
				return nil
			case ids[1]:
				return queueworker.Permanent(errors.New("gone"))
			default:
				close(release)
				<-ctx.Done()
				return ctx.Err()
			}
		}
		rec := &recorder{}
		w, err := queueworker.New(q, h, queueworker.Config{Queue: "q", Holder: "h1", Poll: 20 * time.Millisecond, Observer: rec,
			Delay: func(n int, ra time.Duration) time.Duration {
				delays.Store(n, ra)
				if ra > 0 {
					return ra
				}
				return time.Hour
			}})
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() { w.Run(ctx); close(done) }()
		waitFor(t, "retry then done, and fail", func() bool {
			return rec.count(queueworker.Done) == 1 && rec.count(queueworker.Failed) == 1 && rec.count(queueworker.Retried) == 1
		})
		<-release
		cancel()
		<-done
		if ra, _ := delays.Load(1); ra != 50*time.Millisecond {
			t.Errorf("Retry-After passed to Delay = %v", ra)
		}
		if rec.count(queueworker.Released) != 1 {
			t.Errorf("outcomes %v: the item in flight at shutdown was not released", rec.outcomes)
		}
		failed, err := q.FailedItems(context.Background(), "test", ws)
		if err != nil || len(failed) != 1 || failed[0].ID != ids[1] || failed[0].LastError != "gone" {
			t.Fatalf("failed items: %+v, %v", failed, err)
		}
		// The released item is claimable again at once, its attempt not counted.
		got, err := q.ClaimItems(context.Background(), "q", "h2", 5, time.Minute)
		if err != nil || len(got) != 1 || got[0].ID != ids[2] || got[0].Attempts != 1 {
			t.Fatalf("claim after release: %+v, %v", got, err)
		}
	})
}

// Two workers (two replicas) on one queue never handle one item at the same time, and together handle each.
func TestTwoHolders(t *testing.T) {
	stores(t, func(t *testing.T, q core.Queue) {
		var keys []string
		for range 40 {
			keys = append(keys, "")
		}
		enqueue(t, q, "q", keys...)
		var handled sync.Map
		var dup atomic.Int32
		h := func(ctx context.Context, it core.QueueItem) error {
			if _, again := handled.LoadOrStore(it.ID, true); again {
				dup.Add(1)
			}
			time.Sleep(2 * time.Millisecond)
			return nil
		}
		rec := &recorder{}
		ctx, cancel := context.WithCancel(context.Background())
		var wg sync.WaitGroup
		for _, holder := range []string{"a", "b"} {
			w, err := queueworker.New(q, h, queueworker.Config{Queue: "q", Holder: holder, Concurrency: 4, Poll: 10 * time.Millisecond, Observer: rec})
			if err != nil {
				t.Fatal(err)
			}
			wg.Go(func() { w.Run(ctx) })
		}
		waitFor(t, "all done", func() bool { return rec.count(queueworker.Done) == 40 })
		cancel()
		wg.Wait()
		if dup.Load() != 0 {
			t.Fatalf("%d items handled twice", dup.Load())
		}
	})
}

// A worker whose handler has not answered yet claims only for its slots: the items beyond them stay
// claimable by another holder, rather than leased to a reserve that waits for a subscriber that may never
// answer.
func TestNoReserveBeforeAnAnswer(t *testing.T) {
	stores(t, func(t *testing.T, q core.Queue) {
		var keys []string
		for i := range 40 {
			keys = append(keys, fmt.Sprintf("k%d", i))
		}
		enqueue(t, q, "q", keys...)
		var inflight atomic.Int32
		h := func(ctx context.Context, it core.QueueItem) error {
			inflight.Add(1)
			<-ctx.Done()
			return ctx.Err()
		}
		w, err := queueworker.New(q, h, queueworker.Config{Queue: "q", Holder: "h1", Concurrency: 2, Poll: 5 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() { w.Run(ctx); close(done) }()
		defer func() { cancel(); <-done }()
		waitFor(t, "both slots busy", func() bool { return inflight.Load() == 2 })
		for range 20 { // let the worker look for items many times over while its slots wait
			w.Wake()
			time.Sleep(5 * time.Millisecond)
		}
		got, err := q.ClaimItems(context.Background(), "q", "h2", 100, time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 38 {
			t.Fatalf("another holder could claim %d items, want 38: the waiting worker holds %d", len(got), 40-len(got))
		}
	})
}
