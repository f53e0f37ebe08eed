package insights

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/feedbridge/feedbridge/core"
	"github.com/feedbridge/feedbridge/store/postgres/pgtest"
	"github.com/feedbridge/feedbridge/store/sqlite"
)

// benchStores runs fn on a fresh SQLite file and, when FEEDBRIDGE_TEST_POSTGRES_URL names a server, on a
// fresh PostgreSQL schema.
func benchStores(b *testing.B, fn func(b *testing.B, st core.Store)) {
	b.Run("sqlite", func(b *testing.B) {
		st, err := sqlite.Open(context.Background(), filepath.Join(b.TempDir(), "fb.db"))
		if err != nil {
			b.Fatal(err)
		}
		defer st.Close()
		fn(b, st)
	})
	b.Run("postgres", func(b *testing.B) {
		if os.Getenv(pgtest.EnvURL) == "" {
			b.Skip(pgtest.EnvURL + " is not set")
		}
		fn(b, pgtest.Open(b))
	})
}

// queueUp submits n feedbacks (one insight job each) to ws through the batch path imports take.
func queueUp(b *testing.B, svc *core.Service, ws core.ID, n int, tag string) {
	ctx := context.Background()
	for done := 0; done < n; {
		batch := make([]core.Submission, 0, 1000)
		for ; len(batch) < cap(batch) && done < n; done++ {
			batch = append(batch, core.Submission{Type: core.RecordFeedback, Title: fmt.Sprintf("%s %d", tag, done),
				Description: sampleFeedbacks[done%len(sampleFeedbacks)]})
		}
		if _, err := svc.SubmitBatch(ctx, ws, batch); err != nil {
			b.Fatal(err)
		}
	}
}

// waitDrained polls the queue depth until it is empty.
func waitDrained(b *testing.B, st core.Store, limit time.Duration) {
	for deadline := time.Now().Add(limit); ; time.Sleep(20 * time.Millisecond) { // counting is a scan: polling hard slows the workers
		n, err := st.InsightQueueDepth(context.Background())
		if err != nil {
			b.Fatal(err)
		}
		if n == 0 {
			return
		}
		if time.Now().After(deadline) {
			b.Fatalf("%d jobs still queued after %s", n, limit)
		}
	}
}

// startPool resets the benchmark's clock and starts the daemon's default pool (two workers, builtin
// extractor) on st; the returned function stops it.
func startPool(b *testing.B, st core.Store) (stop func()) {
	p, err := NewPool(st, NewBuiltin(0), PoolConfig{Workers: 2, PollInterval: 10 * time.Millisecond})
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	b.ResetTimer()
	go func() {
		defer close(done)
		_ = p.Run(ctx)
	}()
	return func() {
		cancel()
		<-done
	}
}

// BenchmarkQueueDrain fills the queue with b.N jobs, measures the create rate that eight clients reach
// through core.Service.Submit (the call behind every POST) on the same store with the queue that full,
// then how fast the daemon's default pool (two workers, builtin extractor) empties it: the queue keeps up
// when jobs/s is at least creates/s.
func BenchmarkQueueDrain(b *testing.B) {
	benchStores(b, func(b *testing.B, st core.Store) {
		ctx := context.Background()
		svc := core.NewService(st, core.Options{})
		ws, err := svc.CreateWorkspace(ctx, "Bench", core.PlanPro, 0)
		if err != nil {
			b.Fatal(err)
		}
		queueUp(b, svc, ws.ID, b.N, "queued")

		const clients, creates = 8, 2000
		var next atomic.Int64
		var wg sync.WaitGroup
		start := time.Now()
		for range clients {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := next.Add(1); i <= creates; i = next.Add(1) {
					sub := core.Submission{Type: core.RecordFeedback, Title: fmt.Sprintf("created %d", i),
						Description: sampleFeedbacks[int(i)%len(sampleFeedbacks)]}
					if _, err := svc.Submit(ctx, ws.ID, sub); err != nil {
						b.Error(err)
						return
					}
				}
			}()
		}
		wg.Wait()
		createRate := creates / time.Since(start).Seconds()

		defer startPool(b, st)()
		waitDrained(b, st, 30*time.Minute)
		b.StopTimer()
		drain := float64(b.N+creates) / b.Elapsed().Seconds()
		b.ReportMetric(drain, "jobs/s")
		b.ReportMetric(createRate, "creates/s")
		b.ReportMetric(drain/createRate, "drain/create")
		b.ReportMetric(0, "ns/op")
	})
}

// BenchmarkQueueFairness queues b.N jobs in one workspace (an import), starts the pool, and while that
// backlog drains submits probe feedbacks one by one in another workspace, timing each until its insights
// are stored: with fair claims a probe waits for a claim or two, not for the backlog.
func BenchmarkQueueFairness(b *testing.B) {
	probes := 50
	benchStores(b, func(b *testing.B, raw core.Store) {
		ctx := context.Background()
		st := &timingStore{Store: raw, done: map[core.ID]time.Time{}}
		svc := core.NewService(st, core.Options{})
		big, err := svc.CreateWorkspace(ctx, "Import", core.PlanPro, 0)
		if err != nil {
			b.Fatal(err)
		}
		small, err := svc.CreateWorkspace(ctx, "Probe", core.PlanPro, 0)
		if err != nil {
			b.Fatal(err)
		}
		queueUp(b, svc, big.ID, b.N, "import")
		defer startPool(b, st)()
		var lags []time.Duration
		for i := range probes {
			res, err := svc.Submit(ctx, small.ID, core.Submission{Type: core.RecordFeedback, Title: fmt.Sprintf("probe %d", i),
				Description: sampleFeedbacks[i%len(sampleFeedbacks)]})
			if err != nil {
				b.Fatal(err)
			}
			at := time.Now()
			for {
				st.mu.Lock()
				doneAt, ok := st.done[res.Record.ID]
				st.mu.Unlock()
				if ok {
					lags = append(lags, doneAt.Sub(at))
					break
				}
				if time.Since(at) > 5*time.Minute {
					b.Fatalf("probe %d has no insights after 5 minutes", i)
				}
				time.Sleep(time.Millisecond)
			}
		}
		depth, err := raw.InsightQueueDepth(ctx)
		if err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		if depth == 0 && b.N > probes {
			b.Logf("the backlog of %d drained before the last probe: the probes did not all run beside it", b.N)
		}
		sort.Slice(lags, func(i, j int) bool { return lags[i] < lags[j] })
		pct := func(q float64) float64 { return float64(lags[int(q*float64(len(lags)-1))].Microseconds()) / 1000 }
		b.ReportMetric(pct(0.5), "p50-probe-ms")
		b.ReportMetric(pct(0.99), "p99-probe-ms")
		b.ReportMetric(float64(depth), "backlog-left")
		b.ReportMetric(0, "ns/op")
	})
}
