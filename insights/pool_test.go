package insights

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/feedbridge/feedbridge/core"
	"github.com/feedbridge/feedbridge/store/postgres/pgtest"
	"github.com/feedbridge/feedbridge/store/sqlite"
)

// queueEnv is a real SQLite store with one workspace, its service, and helpers to fill the queue.
type queueEnv struct {
	t   *testing.T
	ctx context.Context
	st  core.Store
	svc *core.Service
	ws  core.ID
}

// opener gives a test a fresh, real store.
type opener func(t *testing.T) core.Store

func openSQLite(t *testing.T) core.Store {
	st, err := sqlite.Open(t.Context(), filepath.Join(t.TempDir(), "fb.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// onEachStore runs fn on SQLite, and on PostgreSQL when FEEDBRIDGE_TEST_POSTGRES_URL names a server.
func onEachStore(t *testing.T, fn func(t *testing.T, open opener)) {
	t.Run("sqlite", func(t *testing.T) { fn(t, openSQLite) })
	t.Run("postgres", func(t *testing.T) {
		if os.Getenv(pgtest.EnvURL) == "" {
			t.Skip(pgtest.EnvURL + " is not set: the queue ran on SQLite only")
		}
		fn(t, func(t *testing.T) core.Store { return pgtest.Open(t) })
	})
}

func newQueueEnv(t *testing.T, open opener, attempts int, obs core.Observer) *queueEnv {
	t.Helper()
	return newQueueEnvOn(t, open(t), attempts, obs)
}

func newQueueEnvOn(t *testing.T, st core.Store, attempts int, obs core.Observer) *queueEnv {
	t.Helper()
	svc := core.NewService(st, core.Options{JobAttempts: attempts, Observer: obs})
	ws, err := svc.CreateWorkspace(t.Context(), "Acme", core.PlanPro, 0)
	if err != nil {
		t.Fatal(err)
	}
	return &queueEnv{t: t, ctx: t.Context(), st: st, svc: svc, ws: ws.ID}
}

func (e *queueEnv) feedback(title, desc string) core.ID {
	e.t.Helper()
	res, err := e.svc.Submit(e.ctx, e.ws, core.Submission{Type: core.RecordFeedback, Title: title, Description: desc})
	if err != nil {
		e.t.Fatal(err)
	}
	return res.Record.ID
}

func (e *queueEnv) depth() int {
	e.t.Helper()
	n, err := e.st.InsightQueueDepth(e.ctx)
	if err != nil {
		e.t.Fatal(err)
	}
	return n
}

func (e *queueEnv) insights(rec core.ID) []core.Insight {
	e.t.Helper()
	ins, err := e.st.Insights(e.ctx, e.ws, rec)
	if err != nil {
		e.t.Fatal(err)
	}
	return ins
}

// start runs the pool until the test ends (or stop is called) and returns stop, which waits for Run.
func start(t *testing.T, p *Pool) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- p.Run(ctx) }()
	var once sync.Once
	stop = func() {
		once.Do(func() {
			cancel()
			select {
			case err := <-done:
				if err != nil {
					t.Errorf("Run: %v", err)
				}
			case <-time.After(10 * time.Second):
				t.Error("Run did not return after its context ended")
			}
		})
	}
	t.Cleanup(stop)
	return stop
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// fastConfig keeps waits short, but gives a stop a long grace: a test that checks what a stop wrote or gave
// back must not fail because a slow machine cut the stop short.
func fastConfig(reg prometheus.Registerer) PoolConfig {
	return PoolConfig{Workers: 3, Lease: 10 * time.Second, PollInterval: 20 * time.Millisecond,
		BaseBackoff: 10 * time.Millisecond, MaxBackoff: 40 * time.Millisecond, Metrics: reg, StopGrace: time.Minute}
}

func TestPoolDrainsQueue(t *testing.T) {
	onEachStore(t, func(t *testing.T, open opener) {
		e := newQueueEnv(t, open, 0, nil)
		if _, err := e.st.PutLookups(e.ctx, e.ws, core.LookupTag, []string{"Mobile App", "Billing"}); err != nil {
			t.Fatal(err)
		}
		var recs []core.ID
		for i := 0; i < 24; i++ {
			recs = append(recs, e.feedback(fmt.Sprintf("feedback %d", i), sampleFeedbacks[i%len(sampleFeedbacks)]))
		}
		noDesc := e.feedback("title only", "")
		if got := e.depth(); got != len(recs) {
			t.Fatalf("queue depth %d, want %d (a feedback without description is not queued)", got, len(recs))
		}
		reg := prometheus.NewRegistry()
		p, err := NewPool(e.st, NewBuiltin(0), fastConfig(reg))
		if err != nil {
			t.Fatal(err)
		}
		stop := start(t, p)
		waitFor(t, "an empty queue", func() bool { return e.depth() == 0 })
		stop()

		for i, rec := range recs {
			ins := e.insights(rec)
			want, _ := NewBuiltin(0).Extract(e.ctx, Input{Text: sampleFeedbacks[i%len(sampleFeedbacks)], Tags: []string{"Mobile App", "Billing"}})
			if len(ins) != len(want) || len(ins) == 0 {
				t.Fatalf("record %d: %d insights stored, want %d", i, len(ins), len(want))
			}
			for k, in := range ins {
				if in.Extractor != "builtin" || in.Kind != want[k].Kind || in.Quote != want[k].Quote || in.RecordID != rec ||
					in.Workspace != e.ws || !core.ValidID(string(in.ID)) || in.CreatedAt.IsZero() {
					t.Errorf("record %d insight %d = %+v, want %+v", i, k, in, want[k])
				}
			}
		}
		if ins := e.insights(noDesc); len(ins) != 0 {
			t.Errorf("feedback without description got insights: %+v", ins)
		}
		if got := testutil.ToFloat64(p.metrics.completed.WithLabelValues("builtin")); got != float64(len(recs)) {
			t.Errorf("completed metric = %v, want %d", got, len(recs))
		}
		if got := testutil.CollectAndCount(reg, "feedbridge_insight_job_lag_seconds", "feedbridge_insight_queue_depth",
			"feedbridge_insight_job_duration_seconds", "feedbridge_insight_jobs_completed_total"); got != 4 {
			t.Errorf("registered series = %d, want 4", got)
		}
	})
}

// countingExtractor counts the extractions per record and can fail or block on demand.
type countingExtractor struct {
	mu      sync.Mutex
	calls   map[string]int
	fails   int           // fail this many calls in total before succeeding
	err     error         // the failure returned
	delay   time.Duration // per call, to make workers overlap
	block   bool          // wait for ctx to end
	started chan struct{}
}

func (c *countingExtractor) Name() string { return "counting" }

func (c *countingExtractor) Extract(ctx context.Context, in Input) ([]Insight, error) {
	c.mu.Lock()
	if c.calls == nil {
		c.calls = map[string]int{}
	}
	c.calls[in.Title]++
	fail := c.fails > 0
	if fail {
		c.fails--
	}
	c.mu.Unlock()
	if c.started != nil {
		c.started <- struct{}{}
	}
	if c.block {
		<-ctx.Done()
		return nil, ctx.Err()
	}
	time.Sleep(c.delay)
	if fail {
		return nil, c.err
	}
	return NewBuiltin(0).Extract(ctx, in)
}

func (c *countingExtractor) count(title string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.calls[title]
}

func TestPoolRunsEachJobOnceAcrossReplicas(t *testing.T) {
	onEachStore(t, func(t *testing.T, open opener) {
		e := newQueueEnv(t, open, 0, nil)
		const n = 40
		for i := 0; i < n; i++ {
			e.feedback(fmt.Sprintf("job-%02d", i), "The export is broken again.")
		}
		ex := &countingExtractor{delay: 3 * time.Millisecond}
		for i := 0; i < 3; i++ { // three replicas of three workers on one store
			p, err := NewPool(e.st, ex, fastConfig(prometheus.NewRegistry()))
			if err != nil {
				t.Fatal(err)
			}
			start(t, p)
		}
		waitFor(t, "an empty queue", func() bool { return e.depth() == 0 })
		for i := 0; i < n; i++ {
			if got := ex.count(fmt.Sprintf("job-%02d", i)); got != 1 {
				t.Errorf("job-%02d extracted %d times, want exactly once", i, got)
			}
		}
	})
}

func TestPoolRetries(t *testing.T) {
	tests := []struct {
		name        string
		attempts    int
		fails       int
		wantFailed  bool
		wantRetries float64 // failures with final="false"
	}{
		{"succeeds on the third attempt", 5, 2, false, 2},
		{"kept as failed after the last attempt", 3, 99, true, 2},
		{"a single attempt fails for good", 1, 99, true, 0},
	}
	onEachStore(t, func(t *testing.T, open opener) {
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				e := newQueueEnv(t, open, tc.attempts, nil)
				rec := e.feedback("retry me", "Please add dark mode.")
				ex := &countingExtractor{fails: tc.fails, err: errors.New("model unavailable")}
				cfg := fastConfig(nil)
				cfg.MaxAttempts = e.svc.JobAttempts()
				p, err := NewPool(e.st, ex, cfg)
				if err != nil {
					t.Fatal(err)
				}
				start(t, p)
				waitFor(t, "the job to finish", func() bool { return e.depth() == 0 })
				failed, err := e.st.FailedInsightJobs(e.ctx, e.ws)
				if err != nil {
					t.Fatal(err)
				}
				if got := ex.count("retry me"); got != min(tc.attempts, tc.fails+1) {
					t.Errorf("extracted %d times, want %d", got, min(tc.attempts, tc.fails+1))
				}
				if got := testutil.ToFloat64(p.metrics.failures.WithLabelValues("counting", "false")); got != tc.wantRetries {
					t.Errorf("retried failures = %v, want %v", got, tc.wantRetries)
				}
				if !tc.wantFailed {
					if len(failed) != 0 || len(e.insights(rec)) == 0 {
						t.Fatalf("failed jobs %+v, insights %d: want the job done", failed, len(e.insights(rec)))
					}
					return
				}
				if len(failed) != 1 || failed[0].RecordID != rec || failed[0].Attempts != tc.attempts ||
					failed[0].LastError != "counting extractor: model unavailable" {
					t.Fatalf("failed jobs = %+v, want the record's job after %d attempts with its error", failed, tc.attempts)
				}
				if got := testutil.ToFloat64(p.metrics.failures.WithLabelValues("counting", "true")); got != 1 {
					t.Errorf("final failures = %v, want 1", got)
				}
				// A failed job is retried on demand and then succeeds.
				ex.mu.Lock()
				ex.fails = 0
				ex.mu.Unlock()
				if n, err := e.st.RetryInsightJobs(e.ctx, e.ws, failed[0].ID); err != nil || n != 1 {
					t.Fatalf("retry: %d, %v", n, err)
				}
				p.Wake()
				waitFor(t, "the retried job", func() bool { return len(e.insights(rec)) > 0 })
			})
		}
	})
}

func TestPoolHonoursRetryAfter(t *testing.T) {
	onEachStore(t, func(t *testing.T, open opener) {
		e := newQueueEnv(t, open, 5, nil)
		e.feedback("quota", "The export is broken.")
		ex := &countingExtractor{fails: 1, err: &TemporaryError{RetryAfter: time.Hour, Err: errors.New("429")}}
		p, err := NewPool(e.st, ex, fastConfig(nil))
		if err != nil {
			t.Fatal(err)
		}
		stop := start(t, p)
		waitFor(t, "the first attempt", func() bool { return ex.count("quota") == 1 })
		time.Sleep(150 * time.Millisecond) // many polls and backoffs of 10–40ms
		stop()
		if got := ex.count("quota"); got != 1 {
			t.Errorf("extracted %d times within the hour the endpoint asked for", got)
		}
		if got := e.depth(); got != 1 {
			t.Errorf("queue depth %d, want the job still queued", got)
		}
	})
}

func TestPoolReclaimsExpiredLease(t *testing.T) {
	onEachStore(t, func(t *testing.T, open opener) {
		e := newQueueEnv(t, open, 0, nil)
		rec := e.feedback("orphan", "Sync fails every night.")
		dead, err := e.st.ClaimInsightJobs(e.ctx, "dead-worker", 1, 150*time.Millisecond)
		if err != nil || len(dead) != 1 {
			t.Fatalf("claim by the doomed worker: %v, %d jobs", err, len(dead))
		}
		p, err := NewPool(e.st, NewBuiltin(0), fastConfig(nil))
		if err != nil {
			t.Fatal(err)
		}
		start(t, p)
		waitFor(t, "the orphaned job to be reclaimed and done", func() bool { return len(e.insights(rec)) > 0 })
		if err := e.st.CompleteInsightJob(e.ctx, dead[0], "dead-worker", nil); err == nil {
			t.Error("the dead worker could still complete a job it lost")
		}
	})
}

func TestPoolReleasesJobsOnStop(t *testing.T) {
	onEachStore(t, func(t *testing.T, open opener) {
		e := newQueueEnv(t, open, 0, nil)
		e.feedback("slow 1", "The export is broken.")
		e.feedback("slow 2", "The import is broken.")
		ex := &countingExtractor{block: true, started: make(chan struct{}, 2)}
		p, err := NewPool(e.st, ex, fastConfig(nil))
		if err != nil {
			t.Fatal(err)
		}
		stop := start(t, p)
		<-ex.started
		<-ex.started
		stop()
		jobs, err := e.st.ClaimInsightJobs(e.ctx, "next-replica", 10, time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		if len(jobs) != 2 {
			t.Fatalf("after stop %d jobs claimable, want both released", len(jobs))
		}
		for _, j := range jobs {
			if j.Attempts != 1 {
				t.Errorf("job %s attempts = %d, want 1: a release must not use up an attempt", j.ID, j.Attempts)
			}
		}
	})
}

func TestPoolWakesOnNewFeedback(t *testing.T) {
	onEachStore(t, func(t *testing.T, open opener) { wakesOnNewFeedback(t, open(t)) })
}

func wakesOnNewFeedback(t *testing.T, st core.Store) {
	cfg := fastConfig(nil)
	cfg.PollInterval = time.Hour
	p, err := NewPool(st, NewBuiltin(0), cfg)
	if err != nil {
		t.Fatal(err)
	}
	e := newQueueEnvOn(t, st, 0, p) // the pool observes the service's new records
	start(t, p)
	time.Sleep(50 * time.Millisecond) // let the pool find the queue empty and go idle
	rec := e.feedback("now", "Love the new dashboard!")
	waitFor(t, "insights without waiting for a poll", func() bool { return len(e.insights(rec)) > 0 })
}

func TestNewPool(t *testing.T) {
	e := newQueueEnv(t, openSQLite, 0, nil)
	reg := prometheus.NewRegistry()
	if _, err := NewPool(e.st, NewBuiltin(0), PoolConfig{Metrics: reg}); err != nil {
		t.Fatal(err)
	}
	if _, err := NewPool(e.st, NewBuiltin(0), PoolConfig{Metrics: reg}); err == nil {
		t.Error("a second pool registered the same metrics without error")
	}
	if _, err := NewPool(nil, NewBuiltin(0), PoolConfig{}); err == nil {
		t.Error("a pool without a store was accepted")
	}
	if _, err := NewPool(e.st, NewBuiltin(0), PoolConfig{Workers: -1}); err == nil {
		t.Error("a negative worker count was accepted")
	}
	p, err := NewPool(e.st, NewBuiltin(0), PoolConfig{BaseBackoff: time.Second, MaxBackoff: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		attempt    int
		retryAfter time.Duration
		lo, hi     time.Duration
	}{
		{1, 0, 800 * time.Millisecond, 1200 * time.Millisecond},
		{3, 0, 3200 * time.Millisecond, 4800 * time.Millisecond},
		{10, 0, 8 * time.Second, 12 * time.Second},
		{1, time.Minute, time.Minute, time.Minute},
	} {
		if got := p.backoffFor(tc.attempt, tc.retryAfter); got < tc.lo || got > tc.hi {
			t.Errorf("backoffFor(%d, %v) = %v, want within [%v, %v]", tc.attempt, tc.retryAfter, got, tc.lo, tc.hi)
		}
	}
}

func TestPoolWithoutWorkersLeavesQueue(t *testing.T) {
	e := newQueueEnv(t, openSQLite, 0, nil)
	e.feedback("waits", "The export is broken.")
	reg := prometheus.NewRegistry()
	p, err := NewPool(e.st, NewBuiltin(0), PoolConfig{Workers: 0, PollInterval: 10 * time.Millisecond, Metrics: reg})
	if err != nil {
		t.Fatal(err)
	}
	stop := start(t, p)
	waitFor(t, "the depth gauge", func() bool { return testutil.ToFloat64(p.metrics.depth) == 1 })
	p.Wake()
	time.Sleep(100 * time.Millisecond)
	stop()
	if got := e.depth(); got != 1 {
		t.Errorf("queue depth %d: a pool with 0 workers must leave the job to other replicas", got)
	}
}
