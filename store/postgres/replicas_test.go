package postgres_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/feedbridge/feedbridge/core"
	"github.com/feedbridge/feedbridge/store/postgres"
	"github.com/feedbridge/feedbridge/store/postgres/pgtest"
)

// Several replicas starting at once must apply each migration exactly once.
func TestMigrateConcurrently(t *testing.T) {
	t.Parallel()
	u := pgtest.URL(t)
	const n = 5
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s, err := postgres.Open(context.Background(), u)
			if err == nil {
				err = s.Ping(context.Background())
				s.Close()
			}
			errs[i] = err
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("replica %d: %v", i, err)
		}
	}
	s, err := postgres.Open(context.Background(), u)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var rows, distinct int
	if err := s.Pool().QueryRow(context.Background(), `SELECT count(*), count(DISTINCT version) FROM schema_migrations`).Scan(&rows, &distinct); err != nil {
		t.Fatal(err)
	}
	if rows != distinct || rows == 0 {
		t.Errorf("schema_migrations has %d rows for %d versions", rows, distinct)
	}
}

// The rules that need serialising hold across replicas, which share nothing but the database.
func TestReplicasAgree(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	rs := replicas(t, 3)
	ws := workspace(t, rs[0], 10)

	t.Run("idea limit never overshoots", func(t *testing.T) {
		var (
			wg          sync.WaitGroup
			mu          sync.Mutex
			ok, limited int
		)
		for i := range 30 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				nr := newRecord(fmt.Sprintf("idea %d", i))
				nr.Type, nr.CountIdea = core.RecordIdea, true
				_, _, err := rs[i%len(rs)].CreateRecord(ctx, ws.ID, nr)
				mu.Lock()
				defer mu.Unlock()
				var le *core.IdeaLimitError
				switch {
				case err == nil:
					ok++
				case errors.As(err, &le) && le.Limit == 10 && le.Used == 10:
					limited++
				default:
					t.Errorf("create %d: %v", i, err)
				}
			}()
		}
		wg.Wait()
		if ok != 10 || limited != 20 {
			t.Errorf("%d created, %d limited; want 10 and 20", ok, limited)
		}
		w, err := rs[1].Workspace(ctx, ws.ID)
		if err != nil || w.IdeasUsed != 10 {
			t.Errorf("ideas_used = %d (%v), want 10", w.IdeasUsed, err)
		}
	})

	t.Run("same dedup key lands once", func(t *testing.T) {
		ids := race(t, 12, func(i int) (core.ID, bool, error) {
			nr := newRecord("dup")
			nr.DedupKey = "slack:T1:C1:123.456"
			r, created, err := rs[i%len(rs)].CreateRecord(ctx, ws.ID, nr)
			return r.ID, created, err
		})
		if len(ids) != 1 {
			t.Errorf("%d distinct records for one dedup key", len(ids))
		}
	})

	t.Run("same idempotency key lands once", func(t *testing.T) {
		ids := race(t, 12, func(i int) (core.ID, bool, error) {
			nr := newRecord("idem")
			nr.Idempotency = &core.Idempotency{Key: "k-1", Fingerprint: "body-1"}
			r, created, err := rs[i%len(rs)].CreateRecord(ctx, ws.ID, nr)
			return r.ID, created, err
		})
		if len(ids) != 1 {
			t.Errorf("%d distinct records for one idempotency key", len(ids))
		}
		nr := newRecord("idem other body")
		nr.Idempotency = &core.Idempotency{Key: "k-1", Fingerprint: "body-2"}
		if _, _, err := rs[2].CreateRecord(ctx, ws.ID, nr); !errors.Is(err, core.ErrIdempotencyConflict) {
			t.Errorf("other body with the same key: %v, want ErrIdempotencyConflict", err)
		}
	})

	t.Run("each insight job is claimed once", func(t *testing.T) {
		for i := range 40 {
			nr := newRecord(fmt.Sprintf("job %d", i))
			nr.EnqueueInsight = true
			if _, _, err := rs[0].CreateRecord(ctx, ws.ID, nr); err != nil {
				t.Fatal(err)
			}
		}
		var (
			wg   sync.WaitGroup
			mu   sync.Mutex
			seen = map[core.ID]string{}
		)
		for w := range 6 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				worker := fmt.Sprintf("w%d", w)
				for {
					jobs, err := rs[w%len(rs)].ClaimInsightJobs(ctx, worker, 3, time.Minute)
					if err != nil {
						t.Error(err)
						return
					}
					if len(jobs) == 0 {
						return
					}
					mu.Lock()
					for _, j := range jobs {
						if prev, dup := seen[j.ID]; dup {
							t.Errorf("job %s claimed by %s and %s", j.ID, prev, worker)
						}
						seen[j.ID] = worker
					}
					mu.Unlock()
					for _, j := range jobs {
						if err := rs[w%len(rs)].CompleteInsightJob(ctx, j, worker, nil); err != nil {
							t.Error(err)
						}
					}
				}
			}()
		}
		wg.Wait()
		if len(seen) != 40 {
			t.Errorf("%d jobs claimed, want 40", len(seen))
		}
	})
}

// race runs fn n times at once and returns the distinct ids it produced; exactly one call may create.
func race(t *testing.T, n int, fn func(i int) (core.ID, bool, error)) map[core.ID]bool {
	t.Helper()
	var (
		wg      sync.WaitGroup
		mu      sync.Mutex
		ids     = map[core.ID]bool{}
		created int
	)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			id, c, err := fn(i)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				t.Errorf("call %d: %v", i, err)
				return
			}
			ids[id] = true
			if c {
				created++
			}
		}()
	}
	wg.Wait()
	if created != 1 {
		t.Errorf("%d calls created a record, want exactly 1", created)
	}
	return ids
}

// A lease has one holder at a time across replicas; it can be renewed by its holder, taken over once
// expired, and handed over at once by Release.
func TestLeasesAcrossReplicas(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	rs := replicas(t, 2)
	acquire := func(i int, holder string, ttl time.Duration) bool {
		t.Helper()
		ok, err := rs[i].TryAcquire(ctx, "csv:nightly", holder, ttl)
		if err != nil {
			t.Fatal(err)
		}
		return ok
	}
	steps := []struct {
		name   string
		run    func() bool
		want   bool
		before time.Duration
	}{
		{"a takes the free lease", func() bool { return acquire(0, "a", 400*time.Millisecond) }, true, 0},
		{"b cannot take it", func() bool { return acquire(1, "b", time.Minute) }, false, 0},
		{"a renews it", func() bool { return acquire(0, "a", 400*time.Millisecond) }, true, 0},
		{"b takes it once expired", func() bool { return acquire(1, "b", time.Minute) }, true, 600 * time.Millisecond},
		{"a has lost it", func() bool { return acquire(0, "a", time.Minute) }, false, 0},
		{"a's release does not free b's lease", func() bool {
			if err := rs[0].Release(ctx, "csv:nightly", "a"); err != nil {
				t.Fatal(err)
			}
			return acquire(0, "a", time.Minute)
		}, false, 0},
		{"after b releases, a takes it at once", func() bool {
			if err := rs[1].Release(ctx, "csv:nightly", "b"); err != nil {
				t.Fatal(err)
			}
			return acquire(0, "a", time.Minute)
		}, true, 0},
	}
	for _, st := range steps {
		time.Sleep(st.before)
		if got := st.run(); got != st.want {
			t.Fatalf("%s: got %v, want %v", st.name, got, st.want)
		}
	}

	// Many replicas racing for a free lease: exactly one wins.
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		wins int
	)
	for i := range 10 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ok, err := rs[i%2].TryAcquire(ctx, "email:support", fmt.Sprintf("replica-%d", i), time.Minute)
			if err != nil {
				t.Error(err)
			}
			if ok {
				mu.Lock()
				wins++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if wins != 1 {
		t.Errorf("%d replicas won the lease, want 1", wins)
	}
}
