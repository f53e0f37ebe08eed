package insights

import (
	"context"
	"database/sql"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sirupsen/logrus"
	logtest "github.com/sirupsen/logrus/hooks/test"

	"github.com/feedbridge/feedbridge/core"
	"github.com/feedbridge/feedbridge/store/sqlite"
)

// gatedExtractor runs the builtin extractor once the test opens its gate, so the test can make the store
// unavailable between the extraction and the write of its result.
type gatedExtractor struct {
	started chan struct{}
	gate    chan struct{}
}

func (g *gatedExtractor) Name() string { return "gated" }

func (g *gatedExtractor) Extract(ctx context.Context, in Input) ([]Insight, error) {
	g.started <- struct{}{}
	select {
	case <-g.gate:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return NewBuiltin(0).Extract(ctx, in)
}

// outageEnv is a pool on a real SQLite file whose write lock another connection can take, as a second
// process (the CLI, a backup) does: the store's writes then wait out its busy timeout and fail as
// unavailable.
type outageEnv struct {
	*queueEnv
	ex   *gatedExtractor
	logs *logtest.Hook
	lock *sql.Conn
	pool *Pool
	stop func()
}

func newOutageEnv(t *testing.T, lease time.Duration) *outageEnv {
	path := filepath.Join(t.TempDir(), "fb.db")
	st, err := sqlite.Open(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	other, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(5000)")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { other.Close() })
	lock, err := other.Conn(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	logger, hook := logtest.NewNullLogger()
	cfg := fastConfig(nil)
	cfg.Workers, cfg.Lease, cfg.Log = 1, lease, logrus.NewEntry(logger)
	cfg.StopGrace = shutdownGrace // the stops here are timed against the default grace
	ex := &gatedExtractor{started: make(chan struct{}, 1), gate: make(chan struct{})}
	p, err := NewPool(st, ex, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return &outageEnv{queueEnv: newQueueEnvOn(t, st, 0, nil), ex: ex, logs: hook, lock: lock, pool: p}
}

// takeStore holds the write lock once the worker has extracted, then lets the worker finish and waits
// until its write of the result has failed for the lock.
func (e *outageEnv) takeStore() {
	e.t.Helper()
	e.stop = start(e.t, e.pool)
	<-e.ex.started
	if _, err := e.lock.ExecContext(e.ctx, "BEGIN IMMEDIATE"); err != nil {
		e.t.Fatal(err)
	}
	close(e.ex.gate)
	waitFor(e.t, "the result write to fail on the locked store", func() bool { return e.logged("insights: complete job") })
}

// logged reports whether a warning starting with msg was logged.
func (e *outageEnv) logged(msg string) bool {
	for _, en := range e.logs.AllEntries() {
		if en.Level == logrus.WarnLevel && strings.HasPrefix(en.Message, msg) {
			return true
		}
	}
	return false
}

func (e *outageEnv) giveStoreBack() {
	e.t.Helper()
	if _, err := e.lock.ExecContext(e.ctx, "ROLLBACK"); err != nil {
		e.t.Fatal(err)
	}
}

// job reads the one job's state and attempts from the queue; a job that left the queue is done.
func (e *outageEnv) job() core.InsightJob {
	e.t.Helper()
	var j core.InsightJob
	err := e.lock.QueryRowContext(e.ctx, "SELECT state, attempts FROM queue_items WHERE queue = ?", core.InsightQueue).
		Scan(&j.State, &j.Attempts)
	if errors.Is(err, sql.ErrNoRows) {
		return core.InsightJob{State: core.JobDone}
	}
	if err != nil {
		e.t.Fatal(err)
	}
	return j
}

// reruns is how often the extractor started again after its first run (at most one is counted).
func (e *outageEnv) reruns() int { return len(e.ex.started) }

// A result that cannot be written because the store is unavailable is written as soon as the store is
// back: the job does not wait, claimed, for its lease to run out. The extraction is not run again.
func TestPoolWritesResultWhenStoreIsBack(t *testing.T) {
	e := newOutageEnv(t, time.Minute)
	rec := e.feedback("outage", "The CSV export times out every night.")
	e.takeStore()
	if j := e.job(); j.State != core.JobRunning || j.Attempts != 1 {
		t.Fatalf("job %s after %d attempts while its result cannot be written, want running after 1", j.State, j.Attempts)
	}
	e.giveStoreBack()
	back := time.Now()
	deadline := back.Add(firstRewrite + maxRewrite + 5*time.Second)
	for e.job().State != core.JobDone {
		if time.Now().After(deadline) {
			t.Fatalf("job still %s %v after the store came back (lease 1 minute): its result was not written again", e.job().State, time.Since(back))
		}
		time.Sleep(20 * time.Millisecond)
	}
	if n := e.reruns(); n != 0 {
		t.Errorf("extraction ran again %d time(s), want once in all: an unwritten result is not a failed attempt", n)
	}
	if n := len(e.insights(rec)); n == 0 {
		t.Error("job done without insights")
	}
	t.Logf("done %v after the store came back", time.Since(back).Round(10*time.Millisecond))
}

// While the store stays unavailable, stopping the pool is not held up by the rewrites: Run returns within
// its shutdown grace (every store call still made shares it; the bound leaves as much again for a slow
// machine) and the job keeps its claim for the lease, as after a crash.
func TestPoolStopsRewritingOnShutdown(t *testing.T) {
	e := newOutageEnv(t, time.Minute)
	e.feedback("outage", "The CSV export times out every night.")
	e.takeStore()
	stopped := time.Now()
	e.stop()
	if d := time.Since(stopped); d > 2*shutdownGrace {
		t.Errorf("Run took %v to return while the store was unavailable", d)
	} else {
		t.Logf("Run returned %v after the stop", d.Round(time.Millisecond))
	}
	e.giveStoreBack()
	if j := e.job(); j.State != core.JobRunning {
		t.Errorf("job %s after a stop during the outage, want still running (claimed until its lease ends)", j.State)
	}
}

// A store that stays unavailable past the claim's lease ends the rewrites: the worker gives the job up,
// and once the store is back and the lease over, the job is claimed again and done, once.
func TestPoolStopsRewritingAtLeaseEnd(t *testing.T) {
	e := newOutageEnv(t, 7*time.Second)
	rec := e.feedback("outage", "The CSV export times out every night.")
	e.takeStore()
	waitFor(t, "the worker to give up the write at the end of the lease", func() bool {
		return e.logged("insights: complete job (the lease will expire")
	})
	e.giveStoreBack()
	waitFor(t, "the job claimed again after its lease and done", func() bool { return e.job().State == core.JobDone })
	if n := e.reruns(); n != 1 {
		t.Errorf("extraction ran again %d time(s), want once (the result given up, then the run after the lease)", n)
	}
	if n := len(e.insights(rec)); n == 0 {
		t.Error("job done without insights")
	}
}
