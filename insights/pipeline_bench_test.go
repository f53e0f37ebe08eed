package insights

import (
	"context"
	"fmt"
	"path/filepath"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/feedbridge/feedbridge/core"
	"github.com/feedbridge/feedbridge/store/sqlite"
)

// timingStore is the real store, noting when each record's insights were stored.
type timingStore struct {
	core.Store
	mu   sync.Mutex
	done map[core.ID]time.Time
}

func (s *timingStore) CompleteInsightJob(ctx context.Context, job core.InsightJob, worker string, ins []core.Insight) error {
	err := s.Store.CompleteInsightJob(ctx, job, worker, ins)
	if err == nil {
		s.mu.Lock()
		s.done[job.RecordID] = time.Now()
		s.mu.Unlock()
	}
	return err
}

func (s *timingStore) CompleteInsightJobs(ctx context.Context, worker string, results []core.JobResult) ([]core.ID, error) {
	notHeld, err := s.Store.CompleteInsightJobs(ctx, worker, results)
	if err == nil {
		lost := map[core.ID]bool{}
		for _, id := range notHeld {
			lost[id] = true
		}
		at := time.Now()
		s.mu.Lock()
		for _, r := range results {
			if !lost[r.Job.ID] {
				s.done[r.Job.RecordID] = at
			}
		}
		s.mu.Unlock()
	}
	return notHeld, err
}

func (s *timingStore) count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.done)
}

// BenchmarkPipelineLag measures the lag from creating a feedback (core.Service.Submit, the path every POST,
// Slack message, e-mail and CSV row takes) to its insights being stored, under a steady load of
// feedbacksPerSecond on a SQLite file with the builtin extractor and two workers.
func BenchmarkPipelineLag(b *testing.B) {
	const feedbacksPerSecond = 200
	ctx := context.Background()
	raw, err := sqlite.Open(ctx, filepath.Join(b.TempDir(), "fb.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer raw.Close()
	st := &timingStore{Store: raw, done: map[core.ID]time.Time{}}
	p, err := NewPool(st, NewBuiltin(0), PoolConfig{Workers: 2})
	if err != nil {
		b.Fatal(err)
	}
	svc := core.NewService(st, core.Options{Observer: p})
	ws, err := svc.CreateWorkspace(ctx, "Bench", core.PlanPro, 0)
	if err != nil {
		b.Fatal(err)
	}
	runCtx, stop := context.WithCancel(ctx)
	defer stop()
	go func() { _ = p.Run(runCtx) }()

	submitted := make(map[core.ID]time.Time, b.N)
	tick := time.NewTicker(time.Second / feedbacksPerSecond)
	defer tick.Stop()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		<-tick.C
		sub := core.Submission{Type: core.RecordFeedback, Title: fmt.Sprintf("feedback %d", i),
			Description: sampleFeedbacks[i%len(sampleFeedbacks)]}
		at := time.Now()
		res, err := svc.Submit(ctx, ws.ID, sub)
		if err != nil {
			b.Fatal(err)
		}
		submitted[res.Record.ID] = at
	}
	for deadline := time.Now().Add(time.Minute); st.count() < b.N; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			b.Fatalf("%d of %d feedbacks got insights within a minute", st.count(), b.N)
		}
	}
	b.StopTimer()
	lags := make([]time.Duration, 0, b.N)
	st.mu.Lock()
	for id, at := range submitted {
		lags = append(lags, st.done[id].Sub(at))
	}
	st.mu.Unlock()
	sort.Slice(lags, func(i, j int) bool { return lags[i] < lags[j] })
	pct := func(q float64) float64 { return float64(lags[int(q*float64(len(lags)-1))].Microseconds()) / 1000 }
	b.ReportMetric(pct(0.5), "p50-lag-ms")
	b.ReportMetric(pct(0.95), "p95-lag-ms")
	b.ReportMetric(pct(1), "max-lag-ms")
	b.ReportMetric(0, "ns/op") // the wall time per op is the load's pacing, not a cost
}
