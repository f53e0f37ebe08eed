package console_test

import (
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/feedbridge/feedbridge/core"
	"github.com/feedbridge/feedbridge/store/postgres"
	"github.com/feedbridge/feedbridge/store/postgres/pgtest"
	"github.com/feedbridge/feedbridge/store/sqlite"
)

// BenchmarkPages fills a workspace at size and times the console's pages through the real server, signed
// in, one request at a time: the inbox, a record page (a different feedback each time), ideas, companies
// and signals, plus the inbox filtered by a theme and the signals of a year. It reports each page's p50
// and p99 in ms (the time from sending the request to the last byte of the answer, on loopback) and the
// inbox's weight in KB, and the same figures for a static file (the floor: what any request costs here).
// SQLite holds FEEDBRIDGE_BENCH_PAGES_SQLITE records (100,000 by default),
// PostgreSQL FEEDBRIDGE_BENCH_PAGES_POSTGRES (1,000,000), when FEEDBRIDGE_TEST_POSTGRES_URL names one.
// A seed of PostgreSQL at that size takes many minutes: FEEDBRIDGE_BENCH_PAGES_POSTGRES_KEEP, the URL of a
// database of its own, keeps the seeded workspace there and reuses it on later runs (the store's migrations
// still run when it opens, so a new index is measured on the same data).
//
//	go test -run '^$' -bench '^BenchmarkPages$' -benchtime 1x -timeout 60m ./console/
func BenchmarkPages(b *testing.B) {
	b.Run("sqlite", func(b *testing.B) {
		n := benchSize(b, "FEEDBRIDGE_BENCH_PAGES_SQLITE", 100_000)
		dir := b.TempDir()
		st, err := sqlite.Open(b.Context(), filepath.Join(dir, "pages.db"))
		if err != nil {
			b.Fatal(err)
		}
		ws := seedPages(b, st, n)
		// Reopened, the store refreshes the planner's statistics of what was just written, as a daemon
		// restarted on a grown store does.
		st.Close()
		if st, err = sqlite.Open(b.Context(), filepath.Join(dir, "pages.db")); err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { st.Close() })
		timePages(b, st, ws, n)
	})
	b.Run("postgres", func(b *testing.B) {
		n := benchSize(b, "FEEDBRIDGE_BENCH_PAGES_POSTGRES", 1_000_000)
		u := os.Getenv("FEEDBRIDGE_BENCH_PAGES_POSTGRES_KEEP")
		if u == "" {
			u = pgtest.URL(b)
		}
		st, err := postgres.Open(b.Context(), u)
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { st.Close() })
		ws := seededPages(b, st, n)
		cu, err := url.Parse(u)
		if err != nil {
			b.Fatal(err)
		}
		q := cu.Query()
		q.Del("pool_max_conns") // a pool's setting, which a single connection refuses
		cu.RawQuery = q.Encode()
		conn, err := pgx.Connect(b.Context(), cu.String())
		if err != nil {
			b.Fatal(err)
		}
		if _, err := conn.Exec(b.Context(), "ANALYZE"); err != nil {
			b.Fatal(err)
		}
		conn.Close(b.Context())
		timePages(b, st, ws, n)
	})
}

func benchSize(b *testing.B, env string, def int) int {
	v := os.Getenv(env)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1000 {
		b.Fatalf("%s: want a whole number of at least 1000, got %q", env, v)
	}
	return n
}

var (
	pageNouns = []string{"export", "dashboard", "invoice", "report", "search", "login", "billing page", "mobile app",
		"notification", "calendar", "api", "integration", "filter", "chart", "import", "permission", "dark mode",
		"onboarding", "email digest", "team view"}
	pageMods = []string{"", "csv ", "slow ", "weekly ", "shared ", "custom "}
)

// pagesTheme is the i-th of the seed's themes: a noun with an optional modifier, 120 in all.
func pagesTheme(i int) string {
	return pageMods[i%len(pageMods)] + pageNouns[(i/len(pageMods))%len(pageNouns)]
}

// seededPages returns the workspace a finished seed of n records left in st, or seeds one. The workspace is
// named for its size only once the seed is done, so that an interrupted seed is not taken for a whole one.
func seededPages(b *testing.B, st core.Store, n int) core.ID {
	b.Helper()
	name := fmt.Sprintf("Pages %d", n)
	all, err := st.Workspaces(b.Context())
	if err != nil {
		b.Fatal(err)
	}
	for _, w := range all {
		if w.Name == name {
			b.Logf("reusing the seeded workspace %s", w.ID)
			return w.ID
		}
	}
	ws := seedPages(b, st, n)
	w, err := st.Workspace(b.Context(), ws)
	if err != nil {
		b.Fatal(err)
	}
	w.Name = name
	if err := st.UpdateWorkspace(b.Context(), w); err != nil {
		b.Fatal(err)
	}
	return ws
}

// seedPages fills one workspace with n records over the last year, as a busy workspace has them: eight in
// ten Feedback (a third still in Triage) from customers of 3,000 companies, the rest Ideas and Features;
// the feedback of the last 60 days with one insight naming two themes.
func seedPages(b *testing.B, st core.Store, n int) core.ID {
	b.Helper()
	ctx := b.Context()
	start := time.Now()
	ws := core.Workspace{ID: core.NewID(), Name: "Pages", Plan: core.PlanBusiness, CreatedAt: time.Now()}
	if err := st.CreateWorkspace(ctx, ws); err != nil {
		b.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(7, 11))
	now := time.Now().Add(-time.Minute)
	step := 365 * 24 * time.Hour / time.Duration(n)
	const batch = 2000
	for i := 0; i < n; i += batch {
		recs := make([]core.NewRecord, 0, batch)
		for j := i; j < min(i+batch, n); j++ {
			at := now.Add(-time.Duration(n-j) * step)
			noun := pageNouns[rng.IntN(len(pageNouns))]
			r := core.NewRecord{ID: core.NewIDAt(at), Type: core.RecordFeedback, Status: core.StatusProcessed, Source: "Email",
				CreatedAt: at, UpdatedAt: at}
			switch {
			case j%10 == 8:
				r.Type, r.Status = core.RecordIdea, core.StatusTriage
			case j%10 == 9:
				r.Type, r.Status = core.RecordFeature, "Planned"
			case j%3 == 0:
				r.Status = core.StatusTriage
			}
			r.Title = fmt.Sprintf("The %s needs work (%d)", noun, j)
			r.Description = fmt.Sprintf("We use the %s every day. It is slow when the team is large and the export of it fails now and then. Ticket %d.", noun, j)
			r.SearchText = core.Fold(r.Title + "\n" + r.Description)
			if r.Type == core.RecordFeedback {
				email := fmt.Sprintf("person%d@company%d.com", j%50_000, j%3000)
				r.Contact = &core.ContactRef{Email: email, EmailKey: email, Domain: fmt.Sprintf("company%d.com", j%3000),
					CompanyName: fmt.Sprintf("Company %d", j%3000)}
				// Insights for the feedback of the last 60 days: the signals window and the one before it,
				// and every page of the inbox a person reads; extracting a million would take the seed
				// longer than the measurement.
				r.EnqueueInsight = j >= n-n*60/365
			}
			recs = append(recs, r)
		}
		if _, err := st.CreateRecords(ctx, ws.ID, recs); err != nil {
			b.Fatal(err)
		}
	}
	made := 0
	for {
		jobs, err := st.ClaimInsightJobs(ctx, "seed", batch, time.Hour)
		if err != nil {
			b.Fatal(err)
		}
		if len(jobs) == 0 {
			break
		}
		results := make([]core.JobResult, len(jobs))
		for k, j := range jobs {
			t := rng.IntN(120)
			results[k] = core.JobResult{Job: j, Insights: []core.Insight{{Kind: "request", Summary: "Wants a faster " + pagesTheme(t),
				Quote: "It is slow.", Sentiment: "negative", SentimentScore: -0.4, Themes: []string{pagesTheme(t), pagesTheme((t + 1 + rng.IntN(20)) % 120)},
				Tags: []string{}, Extractor: "builtin", CreatedAt: time.Now()}}}
		}
		if _, err := st.CompleteInsightJobs(ctx, "seed", results); err != nil {
			b.Fatal(err)
		}
		made += len(jobs)
	}
	b.Logf("seeded %d records and %d insights in %s", n, made, time.Since(start).Round(time.Second))
	return ws.ID
}

// timePages signs in to the console over st and times each page.
func timePages(b *testing.B, st core.Store, ws core.ID, n int) {
	e := newEnv(b, st)
	// A kept workspace has the members of earlier runs: each run signs in as a new one.
	_, br := e.member(ws, fmt.Sprintf("bench%d@acme.com", time.Now().UnixNano()), core.RoleAdmin)
	p, err := e.svc.List(b.Context(), ws, core.ListRequest{RecordType: "Feedback", Limit: "1000"})
	if err != nil || len(p.Records) == 0 {
		b.Fatalf("sample records: %v", err)
	}
	ids := p.Records
	// The workspace's suggestion index is built on its first use, once per daemon, which a person's first
	// record page waits for: it is timed on its own, and the pages after it.
	t0 := time.Now()
	if _, err := e.svc.Suggestions(b.Context(), ws, ids[0].ID, ""); err != nil {
		b.Fatalf("build the suggestion index: %v", err)
	}
	b.Logf("the suggestion index was built in %s", time.Since(t0).Round(time.Millisecond))
	rounds := 200
	if v := os.Getenv("FEEDBRIDGE_BENCH_PAGES_ROUNDS"); v != "" {
		if rounds, err = strconv.Atoi(v); err != nil || rounds < 10 {
			b.Fatalf("FEEDBRIDGE_BENCH_PAGES_ROUNDS: %q", v)
		}
	}
	pages := []struct {
		name  string
		path  func(i int) string
		extra bool // not a page the speed target names: fewer rounds
	}{
		// The floor: a static file through the same server, middleware and session-less path, timed in the
		// same run, so that a reader can tell the machine's load from the pages' own cost.
		{"floor", func(int) string { return "/static/favicon.svg" }, false},
		{"inbox", func(int) string { return "/inbox" }, false},
		{"record", func(i int) string { return "/records/" + string(ids[i%len(ids)].ID) }, false},
		{"ideas", func(int) string { return "/ideas" }, false},
		{"companies", func(int) string { return "/companies" }, false},
		{"signals", func(int) string { return "/signals" }, false},
		{"inbox-theme", func(int) string { return "/inbox?theme=" + strings.ReplaceAll(pagesTheme(7), " ", "+") }, true},
		{"signals-year", func(int) string { return "/signals?window=364" }, true},
	}
	for b.Loop() {
		for _, pg := range pages {
			var times []time.Duration
			size := 0
			n := rounds
			if pg.extra {
				n = min(rounds, 20)
			}
			for i := range n + 5 {
				t0 := time.Now()
				res := br.get(pg.path(i))
				d := time.Since(t0)
				if res.status != http.StatusOK {
					b.Fatalf("%s: %d", pg.path(i), res.status)
				}
				if i >= 5 { // the first few warm the caches
					times = append(times, d)
				}
				size = len(res.body)
			}
			slices.Sort(times)
			b.ReportMetric(ms(times[len(times)/2]), pg.name+"-p50-ms")
			b.ReportMetric(ms(times[len(times)*99/100]), pg.name+"-p99-ms")
			if pg.name == "inbox" {
				b.ReportMetric(float64(size)/1024, "inbox-KB")
			}
		}
	}
	b.ReportMetric(float64(n), "records")
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
