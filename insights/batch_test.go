package insights

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/sirupsen/logrus"
	logtest "github.com/sirupsen/logrus/hooks/test"

	"github.com/feedbridge/feedbridge/core"
)

// countingStore is the real store, counting the pool's claims and completion writes; it can lose the
// answer of its first claims, as a store outage does to a claim that committed on the server.
type countingStore struct {
	core.Store
	mu        sync.Mutex
	lose      int // claims still to lose the answer of
	claims    int // claims that went through
	claimed   int // jobs they took
	completes int // completion writes
}

func (s *countingStore) ClaimInsightJobs(ctx context.Context, worker string, n int, lease time.Duration) ([]core.InsightJob, error) {
	jobs, err := s.Store.ClaimInsightJobs(ctx, worker, n, lease)
	s.mu.Lock()
	defer s.mu.Unlock()
	if err == nil && len(jobs) > 0 && s.lose > 0 {
		s.lose--
		return nil, fmt.Errorf("the claim's answer was lost: %w", core.ErrUnavailable)
	}
	if err == nil {
		s.claims++
		s.claimed += len(jobs)
	}
	return jobs, err
}

func (s *countingStore) CompleteInsightJobs(ctx context.Context, worker string, results []core.JobResult) ([]core.ID, error) {
	s.mu.Lock()
	s.completes++
	s.mu.Unlock()
	return s.Store.CompleteInsightJobs(ctx, worker, results)
}

func (s *countingStore) counts() (claims, claimed, completes int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.claims, s.claimed, s.completes
}

// A claim that took jobs while its answer was lost leaves them held by the pool without its knowing: the
// pool gives them back before it claims again, so they run at once, on their first attempt, instead of
// waiting out their lease (a minute here) to run as a second one.
func TestPoolGivesBackJobsOfALostClaim(t *testing.T) {
	onEachStore(t, func(t *testing.T, open opener) {
		st := &countingStore{Store: open(t), lose: 1}
		e := newQueueEnvOn(t, st, 0, nil)
		const n = 10
		for i := range n {
			e.feedback(fmt.Sprintf("job-%02d", i), "The export is broken again.")
		}
		logger, hook := logtest.NewNullLogger()
		logger.SetLevel(logrus.DebugLevel)
		cfg := fastConfig(nil)
		cfg.Lease, cfg.Log = time.Minute, logrus.NewEntry(logger)
		ex := &countingExtractor{}
		p, err := NewPool(st, ex, cfg)
		if err != nil {
			t.Fatal(err)
		}
		start(t, p)
		// A job's "done" line follows its write, so the queue can be empty a moment before the last line.
		doneLines := func() []*logrus.Entry {
			var out []*logrus.Entry
			for _, en := range hook.AllEntries() {
				if en.Message == "insights: job done" {
					out = append(out, en)
				}
			}
			return out
		}
		waitFor(t, "every job done, well within the lost claim's lease", func() bool {
			return e.depth() == 0 && len(doneLines()) >= n
		})
		done := doneLines()
		for _, en := range done {
			if a := en.Data["attempt"]; a != 1 {
				t.Errorf("job %v done on attempt %v, want 1: the lost claim's attempt counted", en.Data["job"], a)
			}
		}
		if len(done) != n {
			t.Errorf("%d jobs done, want %d", len(done), n)
		}
		for i := range n {
			if got := ex.count(fmt.Sprintf("job-%02d", i)); got != 1 {
				t.Errorf("job-%02d extracted %d times, want once", i, got)
			}
		}
	})
}

// While jobs take little time, the pool claims many per claim and completes many per write; every job
// still ends done with its insights.
func TestPoolClaimsAndCompletesInBatches(t *testing.T) {
	onEachStore(t, func(t *testing.T, open opener) {
		st := &countingStore{Store: open(t)}
		e := newQueueEnvOn(t, st, 0, nil)
		const n = 300
		recs := make([]core.ID, n)
		for i := range recs {
			recs[i] = e.feedback(fmt.Sprintf("feedback %d", i), sampleFeedbacks[i%len(sampleFeedbacks)])
		}
		cfg := fastConfig(nil)
		cfg.Workers = 2
		p, err := NewPool(st, NewBuiltin(0), cfg)
		if err != nil {
			t.Fatal(err)
		}
		start(t, p)
		waitFor(t, "an empty queue", func() bool { return e.depth() == 0 })
		claims, claimed, completes := st.counts()
		t.Logf("%d jobs: %d claims, %d completion writes", n, claims, completes)
		if claimed != n {
			t.Errorf("%d jobs claimed, want %d", claimed, n)
		}
		if claims > n/10 {
			t.Errorf("%d claims for %d quick jobs: they were not claimed in batches", claims, n)
		}
		if completes >= n {
			t.Errorf("%d completion writes for %d jobs: none shared a write", completes, n)
		}
		for i, rec := range recs {
			if len(e.insights(rec)) == 0 {
				t.Fatalf("record %d has no insights", i)
			}
		}
	})
}

// Jobs claimed ahead that no worker started when the pool stops are given back with the running ones,
// their attempts not counted: another replica can claim every job left at once.
func TestPoolGivesBackUnstartedJobsOnStop(t *testing.T) {
	onEachStore(t, func(t *testing.T, open opener) {
		st := &countingStore{Store: open(t)}
		e := newQueueEnvOn(t, st, 0, nil)
		const n = 400
		for i := range n {
			e.feedback(fmt.Sprintf("job-%03d", i), "The export is broken again.")
		}
		ex := &countingExtractor{delay: 2 * time.Millisecond}
		cfg := fastConfig(nil)
		cfg.Workers = 2
		p, err := NewPool(st, ex, cfg)
		if err != nil {
			t.Fatal(err)
		}
		stop := start(t, p)
		waitFor(t, "a reserve claimed beside the workers", func() bool {
			_, claimed, _ := st.counts()
			return claimed > 2*cfg.Workers
		})
		stop()
		left := e.depth()
		if left == 0 {
			t.Fatal("the queue drained before the stop; nothing to check")
		}
		jobs, err := e.st.ClaimInsightJobs(e.ctx, "next-replica", n, time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		if len(jobs) != left {
			t.Fatalf("%d jobs claimable after the stop, want all %d left", len(jobs), left)
		}
		for _, j := range jobs {
			if j.Attempts != 1 {
				t.Fatalf("job %s attempts = %d after the stop, want 1: a job given back must not use up an attempt", j.ID, j.Attempts)
			}
		}
	})
}
