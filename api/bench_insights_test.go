package api

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/feedbridge/feedbridge/core"
	"github.com/feedbridge/feedbridge/insights"
	"github.com/feedbridge/feedbridge/internal/realdata"
	"github.com/feedbridge/feedbridge/internal/testkit"
	"github.com/feedbridge/feedbridge/store/postgres/pgtest"
	"github.com/feedbridge/feedbridge/store/sqlite"
)

// BenchmarkCreateWithInsights compares POST /api/records/feedback from 8 clients through the whole server,
// with the insight pool draining the creates' jobs as `feedbridge serve` runs it (the builtin extractor,
// two workers, woken by each new feedback), against the bare handler of BenchmarkCreateFeedback: decode,
// one INSERT into the records table of another database of the same kind (another SQLite file, or another
// PostgreSQL schema on the same server with FEEDBRIDGE_TEST_POSTGRES_URL set). The arms take turns in
// blocks of createInsightsBlock requests, each client posting back to back over its keep-alive
// connection; each b.Loop iteration is a round of one block of each arm, the order swapping every round.
//
// An API block's time ends when its last create is answered, the insight workers running beside the
// creates all along; what they (and the SQLite full-text indexer) have not caught up with by then is
// finished before the next block starts, so that it never runs in the bare arm's time. ratio is the
// median of the rounds' bare ÷ API block times, ratio-min and ratio-max their spread, ratio-pooled the
// same over every round's requests. ratio-sustained charges the catch-up to the API block too: the rate
// at which creates and their insights are both done. cpu-µs/req is this process's CPU per request of
// each arm, client included (the API arm's with the catch-up); on PostgreSQL, db-cpu-µs/req is that of
// the server's backends serving this process, when the server runs on this machine.
//
//	go test -run '^$' -bench CreateWithInsights -benchtime 20x ./api/
func BenchmarkCreateWithInsights(b *testing.B) {
	b.Run("sqlite", func(b *testing.B) {
		dir := b.TempDir()
		st, err := sqlite.Open(context.Background(), filepath.Join(dir, "api.db"))
		must(b, err)
		defer st.Close()
		bare, bareWS := openBare(b, filepath.Join(dir, "bare.db"))
		defer bare.Close()
		benchCreateWithInsights(b, st, func(ctx context.Context, in bareBody) error {
			return bareInsert(ctx, bare, bareWS, in, false)
		}, nil)
	})
	b.Run("postgres", func(b *testing.B) {
		if os.Getenv(pgtest.EnvURL) == "" {
			b.Skip(pgtest.EnvURL + " is not set")
		}
		bare := pgtest.Open(b)
		ws, err := core.NewService(bare, core.Options{}).CreateWorkspace(context.Background(), "Bare", core.PlanBusiness, 0)
		must(b, err)
		benchCreateWithInsights(b, pgtest.Open(b), barePostgres{bare.Pool(), ws.ID}.create,
			func() time.Duration { return testkit.BackendCPU(os.Getenv(pgtest.EnvURL)) })
	})
}

const createInsightsClients, createInsightsBlock = 8, 200

// backendCPU, when not nil, reads the database server's CPU spent for this process so far.
func benchCreateWithInsights(b *testing.B, st core.Store, bareInsert func(ctx context.Context, in bareBody) error, backendCPU func() time.Duration) {
	if backendCPU == nil {
		backendCPU = func() time.Duration { return 0 }
	}
	ctx, stop := context.WithCancel(context.Background())
	pool, err := insights.NewPool(st, insights.NewBuiltin(0), insights.PoolConfig{Workers: 2,
		MaxAttempts: core.DefaultJobAttempts, Log: quietLog()})
	must(b, err)
	poolDone := make(chan error, 1)
	go func() { poolDone <- pool.Run(ctx) }()
	defer func() {
		stop()
		must(b, <-poolDone)
	}()
	svc := core.NewService(st, core.Options{Observer: pool})
	ws, err := svc.CreateWorkspace(ctx, "Bench", core.PlanBusiness, 0)
	must(b, err)
	_, key, err := svc.CreateKey(ctx, ws.ID, "bench")
	must(b, err)
	apiSrv := httptest.NewServer(New(svc, Options{Log: quietLog(), RateLimit: RateLimit{PerSecond: 1e9, Burst: 1 << 30}}).Handler())
	defer apiSrv.Close()
	bareSrv := httptest.NewServer(bareHandler(bareInsert))
	defer bareSrv.Close()

	load := newCreateLoad(b, key, createInsightsClients)
	gen := realdata.New(realdata.DefaultShape)
	catchUp := func() {
		waitQueueEmpty(b, st)
		if fl, ok := st.(interface{ FlushIndex(context.Context) error }); ok {
			must(b, fl.FlushIndex(ctx))
		}
	}
	var apiTime, apiDone, bareTime, apiCPU, bareCPU, apiDB, bareDB time.Duration
	var ratios []float64
	n := 0
	for b.Loop() {
		bodies := realBodies(b, gen, createInsightsBlock)
		var d [2]time.Duration // API, bare
		for i := range 2 {
			c0, db0 := testkit.ProcessCPU(), backendCPU()
			if (i+n)%2 == 0 {
				d[0] = load.run(apiSrv.URL+"/api/records/feedback", bodies)
				t0 := time.Now()
				catchUp()
				apiDone += d[0] + time.Since(t0)
				apiCPU, apiDB = apiCPU+testkit.ProcessCPU()-c0, apiDB+backendCPU()-db0
			} else {
				d[1] = load.run(bareSrv.URL+"/bare", bodies)
				bareCPU, bareDB = bareCPU+testkit.ProcessCPU()-c0, bareDB+backendCPU()-db0
			}
		}
		apiTime, bareTime = apiTime+d[0], bareTime+d[1]
		ratios = append(ratios, d[1].Seconds()/d[0].Seconds())
		n++
	}
	reqs := float64(n * createInsightsBlock)
	b.ReportMetric(reqs/apiTime.Seconds(), "api-req/s")
	b.ReportMetric(reqs/bareTime.Seconds(), "bare-req/s")
	b.ReportMetric(medianOf(ratios), "ratio")
	b.ReportMetric(slices.Min(ratios), "ratio-min")
	b.ReportMetric(slices.Max(ratios), "ratio-max")
	b.ReportMetric(bareTime.Seconds()/apiTime.Seconds(), "ratio-pooled")
	b.ReportMetric(bareTime.Seconds()/apiDone.Seconds(), "ratio-sustained")
	b.ReportMetric(float64(apiCPU.Microseconds())/reqs, "api-cpu-µs/req")
	b.ReportMetric(float64(bareCPU.Microseconds())/reqs, "bare-cpu-µs/req")
	if apiDB > 0 {
		b.ReportMetric(float64(apiDB.Microseconds())/reqs, "api-db-cpu-µs/req")
		b.ReportMetric(float64(bareDB.Microseconds())/reqs, "bare-db-cpu-µs/req")
	}
}

// realBodies are the next n feedback bodies of a real export's shape: varied texts, most from a new
// customer at a company or on free mail, some with the customer's name.
func realBodies(b *testing.B, gen *realdata.Gen, n int) []string {
	out := make([]string, n)
	for i := range out {
		r := gen.Next()
		body, err := json.Marshal(map[string]string{"title": r.Title, "description": r.Description,
			"customer_email": r.Email, "customer_name": r.Name, "source": "api"})
		must(b, err)
		out[i] = string(body)
	}
	return out
}

// waitQueueEmpty waits until the insight queue holds no job, queued or running.
func waitQueueEmpty(b *testing.B, st core.Store) {
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(2 * time.Millisecond) {
		n, err := st.InsightQueueDepth(context.Background())
		must(b, err)
		if n == 0 {
			return
		}
		if time.Now().After(deadline) {
			b.Fatalf("insight queue still holds %d jobs after a minute", n)
		}
	}
}
