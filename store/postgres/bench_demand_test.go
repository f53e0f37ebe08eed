package postgres_test

import (
	"context"
	"os"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/feedbridge/feedbridge/core"
	"github.com/feedbridge/feedbridge/store/postgres/pgtest"
)

// BenchmarkDemandListing fills one workspace with 10,000 Ideas and FEEDBRIDGE_BENCH_DEMAND_LINKS links
// (default 1,000,000) from a tenth as many Feedback, each linked to ten Ideas, a third of them from one of
// 500 companies (so that every Idea has accounts to rank), by set-based SQL, then
// times GET /records?record_type=Idea&order=demand below HTTP (core.Service.List): the first page of
// 100, and a page on average over a walk of ten pages by their cursors. It reports the p50 of each in ms.
//
//	FEEDBRIDGE_TEST_POSTGRES_URL=... go test -run '^$' -bench DemandListing -benchtime 1x -timeout 30m ./store/postgres/
func BenchmarkDemandListing(b *testing.B) {
	const ideas = 10_000
	links := 1_000_000
	if v := os.Getenv("FEEDBRIDGE_BENCH_DEMAND_LINKS"); v != "" {
		var err error
		if links, err = strconv.Atoi(v); err != nil {
			b.Fatalf("FEEDBRIDGE_BENCH_DEMAND_LINKS: %v", err)
		}
	}
	ctx := context.Background()
	st := pgtest.Open(b)
	ws := workspace(b, st, 0).ID
	pool := st.Pool()
	start := time.Now()
	// Ideas get ids starting "a", feedback "b"; feedback f links to ten distinct Ideas spread by a stride
	// (k·997 differ modulo 10,000 for k < 10, so no link repeats).
	for _, q := range []string{
		`INSERT INTO records (workspace_id, id, type, title, search_text, status, source, created_at, updated_at)
		SELECT $1, 'a' || lpad(to_hex(g), 23, '0'), 'Idea', 'idea ' || g, 'idea ' || g, 'Triage', 'API',
			now() - g * interval '1 minute', now() FROM generate_series(1, ` + strconv.Itoa(ideas) + `) g`,
		`INSERT INTO companies (workspace_id, id, name, domain)
		SELECT $1, 'c' || lpad(to_hex(g), 23, '0'), 'Company ' || g, 'c' || g || '.example' FROM generate_series(1, 500) g`,
		`INSERT INTO records (workspace_id, id, type, title, search_text, status, source, created_at, updated_at, company_id)
		SELECT $1, 'b' || lpad(to_hex(g), 23, '0'), 'Feedback', 'feedback ' || g, 'feedback ' || g, 'Processed', 'API',
			now() - g * interval '1 second', now(),
			CASE WHEN g % 3 = 0 THEN 'c' || lpad(to_hex(1 + g % 500), 23, '0') ELSE '' END
		FROM generate_series(1, ` + strconv.Itoa(links/10) + `) g`,
		`INSERT INTO record_links (workspace_id, feedback_id, target_id, created_at)
		SELECT $1, 'b' || lpad(to_hex(f), 23, '0'),
			'a' || lpad(to_hex(1 + (f * 7 + k * 997) % ` + strconv.Itoa(ideas) + `), 23, '0'), now()
		FROM generate_series(1, ` + strconv.Itoa(links/10) + `) f, generate_series(0, 9) k`,
		`UPDATE records r SET feedback_count = c.n FROM (SELECT target_id, count(*) AS n FROM record_links
			WHERE workspace_id = $1 GROUP BY target_id) c WHERE r.workspace_id = $1 AND r.id = c.target_id`,
		`ANALYZE records`,
		`ANALYZE record_links`,
		`ANALYZE companies`,
	} {
		args := []any{ws}
		if q[:7] == "ANALYZE" {
			args = nil
		}
		if _, err := pool.Exec(ctx, q, args...); err != nil {
			b.Fatalf("fill: %v", err)
		}
	}
	b.Logf("filled %d ideas and %d links in %s", ideas, links, time.Since(start).Round(time.Second))
	svc := core.NewService(st, core.Options{})
	measure := func(page int) time.Duration {
		var times []time.Duration
		for range 30 {
			req := core.ListRequest{RecordType: "Idea", Order: "demand"}
			t0 := time.Now()
			for range page {
				p, err := svc.List(ctx, ws, req)
				if err != nil {
					b.Fatal(err)
				}
				req.Cursor = p.Next
			}
			times = append(times, time.Since(t0)/time.Duration(page))
		}
		slices.Sort(times)
		return times[len(times)/2]
	}
	for b.Loop() {
		b.ReportMetric(float64(measure(1).Microseconds())/1000, "page1-p50-ms")
		b.ReportMetric(float64(measure(10).Microseconds())/1000, "10pages-p50-ms")
	}
}
