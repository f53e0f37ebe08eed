package api

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/feedbridge/feedbridge/core"
	"github.com/feedbridge/feedbridge/store/sqlite"
)

// Run: go test ./api -run '^$' -bench CreateFeedback -benchtime 3000x
//
// BenchmarkCreateFeedback compares POST /api/records/feedback through the whole server (auth, rate limit,
// strict decoding, validation, the service and the store's transaction) with a bare net/http handler that
// decodes the same body and does one INSERT of the same row into the same schema in another SQLite file.
// The arms take turns in blocks of 50 requests, so that all see the same machine noise; "sequential" sends
// one request at a time, "parallel-4" keeps four in flight. Each b.Loop iteration is a round of one block of
// each arm, in an order that rotates every round, and gives a ratio of its own: bare block time ÷ API block
// time, of blocks run within a fraction of a second of each other. ratio (target ≥ 0.7) is the median of the
// rounds' ratios, ratio-min and ratio-max their spread; ratio-pooled is API throughput ÷ bare throughput over
// every round, which one block caught in a burst of load elsewhere can move on its own. Two more arms
// explain the gap: "bare-indexed" also writes the record's full-text entry in the same transaction (the
// store writes it itself, there is no trigger), which is the least a searchable record costs if it is
// indexed in its own transaction (the API arm's records are indexed in batches, and their time includes
// that work); "service" is plain decoding straight into core.Service.Submit, so api vs service is this
// package's own cost. ratio-indexed is the median of the rounds' bare-indexed ÷ API ratios.
func BenchmarkCreateFeedback(b *testing.B) {
	for _, workers := range []int{1, 4} {
		name := "sequential"
		if workers > 1 {
			name = fmt.Sprintf("parallel-%d", workers)
		}
		b.Run(name, func(b *testing.B) { benchCreate(b, workers) })
	}
}

func benchCreate(b *testing.B, workers int) {
	ctx := context.Background()
	dir := b.TempDir()
	st, err := sqlite.Open(ctx, filepath.Join(dir, "api.db"))
	must(b, err)
	defer st.Close()
	svc := core.NewService(st, core.Options{})
	ws, err := svc.CreateWorkspace(ctx, "Bench", core.PlanBusiness, 0)
	must(b, err)
	_, key, err := svc.CreateKey(ctx, ws.ID, "bench")
	must(b, err)
	apiSrv := httptest.NewServer(New(svc, Options{Log: quietLog(), RateLimit: RateLimit{PerSecond: 1e9, Burst: 1 << 30}}).Handler())
	defer apiSrv.Close()
	bare, bareWS := openBare(b, filepath.Join(dir, "bare.db"))
	defer bare.Close()
	bareSrv := httptest.NewServer(bareHandler(func(ctx context.Context, in bareBody) error {
		return bareInsert(ctx, bare, bareWS, in, false)
	}))
	defer bareSrv.Close()
	indexed, indexedWS := openBare(b, filepath.Join(dir, "bare-indexed.db"))
	defer indexed.Close()
	indexedSrv := httptest.NewServer(bareHandler(func(ctx context.Context, in bareBody) error {
		return bareInsert(ctx, indexed, indexedWS, in, true)
	}))
	defer indexedSrv.Close()
	svcSrv := httptest.NewServer(serviceHandler(svc, ws.ID))
	defer svcSrv.Close()

	load := newCreateLoad(b, key, workers)
	const block = 50
	run := func(url string, base int) time.Duration { return load.run(url, titleBodies(base, block)) }
	var apiTime, bareTime, indexedTime, svcTime time.Duration
	var ratios, indexedRatios []float64
	n := 0
	// The store writes a lone record's full-text entry a moment later, in a batch (store/sqlite/indexer.go);
	// each block's time includes writing its entries, so that the API arm pays for its records being indexed
	// as the bare-indexed arm does.
	var drainTime time.Duration
	charged := func(d time.Duration) time.Duration {
		t0 := time.Now()
		must(b, st.FlushIndex(ctx))
		drainTime += time.Since(t0)
		return d + time.Since(t0)
	}
	const apiArm, bareArm, indexedArm, svcArm = 0, 1, 2, 3
	arms := [4]func() time.Duration{
		apiArm:     func() time.Duration { return charged(run(apiSrv.URL+"/api/records/feedback", 2*n*block)) },
		bareArm:    func() time.Duration { return run(bareSrv.URL+"/bare", 2*n*block) },
		indexedArm: func() time.Duration { return run(indexedSrv.URL+"/bare", 2*n*block) },
		svcArm:     func() time.Duration { return charged(run(svcSrv.URL+"/service", (2*n+1)*block)) },
	}
	for b.Loop() {
		var d [len(arms)]time.Duration
		for i := range arms {
			arm := (i + n) % len(arms)
			d[arm] = arms[arm]()
		}
		apiTime, bareTime, indexedTime, svcTime = apiTime+d[apiArm], bareTime+d[bareArm], indexedTime+d[indexedArm], svcTime+d[svcArm]
		ratios = append(ratios, d[bareArm].Seconds()/d[apiArm].Seconds())
		indexedRatios = append(indexedRatios, d[indexedArm].Seconds()/d[apiArm].Seconds())
		n++
	}
	reqs := float64(n * block)
	b.ReportMetric(reqs/apiTime.Seconds(), "api-req/s")
	b.ReportMetric(reqs/bareTime.Seconds(), "bare-req/s")
	b.ReportMetric(reqs/svcTime.Seconds(), "service-req/s")
	b.ReportMetric(reqs/indexedTime.Seconds(), "bare-indexed-req/s")
	b.ReportMetric(medianOf(ratios), "ratio")
	b.ReportMetric(slices.Min(ratios), "ratio-min")
	b.ReportMetric(slices.Max(ratios), "ratio-max")
	b.ReportMetric(bareTime.Seconds()/apiTime.Seconds(), "ratio-pooled")
	b.ReportMetric(drainTime.Seconds()/reqs/2*1e6, "drain-us/rec")
	b.ReportMetric(medianOf(indexedRatios), "ratio-indexed")
}

// medianOf is the median of xs (sorted in place).
func medianOf(xs []float64) float64 {
	slices.Sort(xs)
	n := len(xs)
	return (xs[(n-1)/2] + xs[n/2]) / 2
}

// openBare makes a SQLite file with the store's own schema (so the same indexes and search trigger run)
// and opens it the plain way, one connection with the same pragmas.
func openBare(b *testing.B, path string) (*sql.DB, core.ID) {
	ctx := context.Background()
	st, err := sqlite.Open(ctx, path)
	must(b, err)
	ws, err := core.NewService(st, core.Options{}).CreateWorkspace(ctx, "Bare", core.PlanBusiness, 0)
	must(b, err)
	must(b, st.Close())
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(5000)&_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)&_pragma=foreign_keys(1)")
	must(b, err)
	db.SetMaxOpenConns(1)
	return db, ws.ID
}

// createLoad posts Feedback creates to a server from a fixed number of clients over keep-alive connections.
type createLoad struct {
	tb      testing.TB
	client  *http.Client
	key     string
	clients int
}

func newCreateLoad(tb testing.TB, key string, clients int) *createLoad {
	return &createLoad{tb: tb, key: key, clients: clients,
		client: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: clients}}}
}

// titleBodies are the bodies of creates base+1 … base+n: a numbered title and a source.
func titleBodies(base, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = `{"title":"Export to CSV takes minutes ` + strconv.Itoa(base+i+1) + `","source":"api"}`
	}
	return out
}

// post sends one create to url and expects 201.
func (l *createLoad) post(url, body string) {
	rq, _ := http.NewRequest("POST", url, strings.NewReader(body))
	rq.Header.Set("Content-Type", "application/json")
	rq.Header.Set("X-API-Key", l.key)
	res, err := l.client.Do(rq)
	if err != nil {
		l.tb.Error(err)
		return
	}
	_, _ = io.Copy(io.Discard, res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusCreated {
		l.tb.Errorf("%s: status %d", url, res.StatusCode)
	}
}

// run posts every body to url, each client taking the next as soon as its last is answered, and returns
// how long that took.
func (l *createLoad) run(url string, bodies []string) time.Duration {
	var next atomic.Int64
	var wg sync.WaitGroup
	t0 := time.Now()
	for range l.clients {
		wg.Go(func() {
			for i := int(next.Add(1)); i <= len(bodies); i = int(next.Add(1)) {
				l.post(url, bodies[i-1])
			}
		})
	}
	wg.Wait()
	return time.Since(t0)
}

// bareBody is the feedback body as the bare handler reads it.
type bareBody struct{ Title, Description, CustomerEmail, CustomerName, Source string }

// bareHandler is the floor: decode, then insert writes the row (bareInsert: one INSERT, or with the
// full-text entry too in the same transaction), answer 201.
func bareHandler(insert func(ctx context.Context, in bareBody) error) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var in bareBody
		if err := json.NewDecoder(r.Body).Decode(&in); err != nil || in.Title == "" {
			http.Error(w, "bad", http.StatusBadRequest)
			return
		}
		if err := insert(r.Context(), in); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusCreated)
		_ = json.NewEncoder(w).Encode(map[string]any{"title": in.Title})
	})
}

func bareInsert(ctx context.Context, db *sql.DB, ws core.ID, in bareBody, fts bool) error {
	const ins = `INSERT INTO records(id, workspace_id, type, title, description, search_text, status, source, created_at, updated_at)
		VALUES (?, ?, 'Feedback', ?, ?, ?, 'Triage', 'API', ?, ?)`
	id, now, folded := core.NewID(), time.Now().UnixMilli(), core.Fold(in.Title+" "+in.Description)
	if !fts {
		_, err := db.ExecContext(ctx, ins, id, ws, in.Title, in.Description, folded, now, now)
		return err
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	res, err := tx.ExecContext(ctx, ins, id, ws, in.Title, in.Description, folded, now, now)
	if err != nil {
		return err
	}
	seq, err := res.LastInsertId()
	if err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO records_fts(rowid, search_text) VALUES (?, ?)`, seq, folded); err != nil {
		return err
	}
	return tx.Commit()
}

// serviceHandler is a diagnostic third arm: plain decoding straight into core.Service.Submit on the API's
// store, no middleware. api vs service is this package's cost; service vs bare is the core's and store's.
func serviceHandler(svc *core.Service, ws core.ID) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var in struct{ Title, Source string }
		if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
			http.Error(w, "bad", http.StatusBadRequest)
			return
		}
		res, err := svc.Submit(r.Context(), ws, core.Submission{Type: core.RecordFeedback, Title: in.Title, Source: in.Source})
		if err != nil {
			http.Error(w, "failed", http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusCreated)
		_ = json.NewEncoder(w).Encode(map[string]any{"id": res.Record.ID, "title": res.Record.Title})
	})
}

// BenchmarkSearch measures GET /api/records?search=… through the server over 100k records of one
// workspace (plus 20k of another), reporting the median and 95th percentile latency (target p50 < 20 ms).
func BenchmarkSearch(b *testing.B) {
	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(b.TempDir(), "search.db"))
	must(b, err)
	defer st.Close()
	svc := core.NewService(st, core.Options{})
	ws, err := svc.CreateWorkspace(ctx, "Search", core.PlanBusiness, 0)
	must(b, err)
	other, err := svc.CreateWorkspace(ctx, "Neighbour", core.PlanBusiness, 0)
	must(b, err)
	_, key, err := svc.CreateKey(ctx, ws.ID, "bench")
	must(b, err)
	seedRecords(b, svc, ws.ID, 100_000)
	seedRecords(b, svc, other.ID, 20_000)
	srv := httptest.NewServer(New(svc, Options{Log: quietLog(), RateLimit: RateLimit{PerSecond: 1e9, Burst: 1 << 30}}).Handler())
	defer srv.Close()

	queries := []string{"export", "Straße", "CSV", "dashboard slow", "login", "pricing page", "zebra", "ÉTÉ", "api key", "mobile"}
	var lat []time.Duration
	i := 0
	for b.Loop() {
		q := url.Values{"search": {queries[i%len(queries)]}, "record_type": {"Feedback"}}
		if i%3 == 1 {
			q.Set("sort", "asc")
		}
		rq, _ := http.NewRequest("GET", srv.URL+"/api/records?"+q.Encode(), nil)
		rq.Header.Set("X-API-Key", key)
		t0 := time.Now()
		res, err := http.DefaultClient.Do(rq)
		must(b, err)
		_, _ = io.Copy(io.Discard, res.Body)
		res.Body.Close()
		lat = append(lat, time.Since(t0))
		if res.StatusCode != 200 {
			b.Fatalf("status %d", res.StatusCode)
		}
		i++
	}
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(lat[len(lat)*95/100].Microseconds())/1000, "p95-ms")
}

var benchWords = strings.Fields(`export csv dashboard slow login pricing page mobile app api key report filter
	search invoice billing team member sso okta slack email import sync chart graph widget onboarding tour
	dark mode notification webhook zapier jira linear comment mention archive delete restore permission
	role admin audit log timezone calendar reminder straße café été naïve Ωmega résumé`)

// seedRecords writes n Feedback records in bulk, with texts drawn from a fixed vocabulary.
func seedRecords(b *testing.B, svc *core.Service, ws core.ID, n int) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(1, uint64(len(ws))))
	start := time.Now().Add(-time.Duration(n) * time.Minute)
	words := func(k int) string {
		w := make([]string, k)
		for i := range w {
			w[i] = benchWords[rng.IntN(len(benchWords))]
		}
		return strings.Join(w, " ")
	}
	for done := 0; done < n; {
		batch := make([]core.Submission, 0, 1000)
		for ; len(batch) < cap(batch) && done < n; done++ {
			batch = append(batch, core.Submission{Type: core.RecordFeedback, Title: words(5), Description: words(30),
				Source: "csv", CreatedAt: start.Add(time.Duration(done) * time.Minute)})
		}
		res, err := svc.SubmitBatch(ctx, ws, batch)
		must(b, err)
		for _, r := range res {
			must(b, r.Err)
		}
	}
}

func quietLog() *logrus.Entry {
	l := logrus.New()
	l.SetOutput(io.Discard)
	return logrus.NewEntry(l)
}
