package api

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/feedbridge/feedbridge/core"
	"github.com/feedbridge/feedbridge/store/sqlite"
)

// Run: go test ./api -run '^$' -bench Signals -benchtime 10x
//
// BenchmarkSignals sends 20 concurrent GET /api/records/signals over a workspace holding 7,500 insights
// (2,500 feedback records, three insights each, 40 themes). Each iteration is one burst of 20. "same" asks
// all 20 for one window, new each burst (a dashboard polled by many clients); "distinct" gives every
// request its own window one second after the previous one (a dashboard computing "now minus 30 days"
// per client), which the cache's rounding to whole minutes makes one window (two where they cross a
// minute). burst-ms is the time until the last answer; peak-heap-MB the most heap in use seen during the
// bursts.
func BenchmarkSignals(b *testing.B) {
	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(b.TempDir(), "signals.db"))
	must(b, err)
	defer st.Close()
	svc := core.NewService(st, core.Options{})
	ws, err := svc.CreateWorkspace(ctx, "Signals", core.PlanBusiness, 0)
	must(b, err)
	_, key, err := svc.CreateKey(ctx, ws.ID, "bench")
	must(b, err)
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	const records = 2500
	for i := range records {
		_, err := svc.Submit(ctx, ws.ID, core.Submission{Type: core.RecordFeedback, Title: fmt.Sprintf("Feedback %d", i),
			Description: "The export is slow.", CustomerEmail: fmt.Sprintf("p%d@company%d.com", i, i%50),
			CreatedAt: start.Add(time.Duration(i) * 10 * time.Minute)})
		must(b, err)
	}
	for {
		jobs, err := st.ClaimInsightJobs(ctx, "bench", 500, time.Minute)
		must(b, err)
		if len(jobs) == 0 {
			break
		}
		for n, j := range jobs {
			var ins []core.Insight
			for k := range 3 {
				t := (n*3 + k) % 40
				ins = append(ins, core.Insight{Kind: []string{"request", "problem", "praise", "question"}[k], Summary: "Export is slow",
					Quote: "The export is slow.", Sentiment: "negative", SentimentScore: -0.5,
					Themes: []string{fmt.Sprintf("theme %d", t), fmt.Sprintf("theme %d", (t+7)%40)}, Tags: []string{}, Extractor: "builtin"})
			}
			must(b, st.CompleteInsightJob(ctx, j, "bench", ins))
		}
	}
	srv := httptest.NewServer(New(svc, Options{Log: quietLog(), RateLimit: RateLimit{PerSecond: 1e9, Burst: 1 << 30}}).Handler())
	defer srv.Close()
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 32}}
	end := start.Add(records * 10 * time.Minute)

	for _, mode := range []string{"same", "distinct"} {
		b.Run(mode, func(b *testing.B) {
			var peak atomic.Uint64
			stop := make(chan struct{})
			sampled := make(chan struct{})
			go func() {
				defer close(sampled)
				var ms runtime.MemStats
				for {
					select {
					case <-stop:
						return
					case <-time.After(5 * time.Millisecond):
					}
					runtime.ReadMemStats(&ms)
					if ms.HeapInuse > peak.Load() {
						peak.Store(ms.HeapInuse)
					}
				}
			}()
			var total time.Duration
			burst := 0
			for b.Loop() {
				burst++
				t0 := time.Now()
				var wg sync.WaitGroup
				for r := range 20 {
					// A new minute each burst: windows are rounded to whole minutes, so a shift of
					// milliseconds would be the same window and served from the cache.
					to := end.Add(time.Duration(burst) * time.Minute)
					if mode == "distinct" {
						// A day on, so that no window is one "same" left in the cache.
						to = to.Add(24*time.Hour + time.Duration(r)*time.Second)
					}
					q := url.Values{"created_from": {start.Format(time.RFC3339)}, "created_to": {to.Format(time.RFC3339Nano)}}
					wg.Go(func() {
						rq, _ := http.NewRequest("GET", srv.URL+"/api/records/signals?"+q.Encode(), nil)
						rq.Header.Set("X-API-Key", key)
						res, err := client.Do(rq)
						if err != nil {
							b.Error(err)
							return
						}
						_, _ = io.Copy(io.Discard, res.Body)
						res.Body.Close()
						if res.StatusCode != 200 {
							b.Errorf("status %d", res.StatusCode)
						}
					})
				}
				wg.Wait()
				total += time.Since(t0)
			}
			close(stop)
			<-sampled
			b.ReportMetric(float64(total.Microseconds())/1000/float64(burst), "burst-ms")
			b.ReportMetric(float64(peak.Load())/(1<<20), "peak-heap-MB")
		})
	}
}
