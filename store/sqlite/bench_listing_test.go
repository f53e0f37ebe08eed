package sqlite

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/feedbridge/feedbridge/core"
	"github.com/feedbridge/feedbridge/store/internal/listbench"
)

// fillListing writes n records of the listing data set (listbench.Records) through the bulk path, links a
// fifth of the Feedback to Ideas, and returns the values the listings filter on.
func fillListing(b *testing.B, n int) (*Store, core.ID, listbench.Shape) {
	ctx := context.Background()
	st, err := Open(ctx, filepath.Join(b.TempDir(), "listing.db"))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close() })
	ws := core.Workspace{ID: core.NewID(), Name: "listing", Plan: core.PlanBusiness, CreatedAt: time.Now()}
	if err := st.CreateWorkspace(ctx, ws); err != nil {
		b.Fatal(err)
	}
	var sh listbench.Shape
	tags, err := st.PutLookups(ctx, ws.ID, core.LookupTag, listbench.TagLabels)
	if err != nil {
		b.Fatal(err)
	}
	for _, t := range tags {
		sh.Tags = append(sh.Tags, t.ID)
	}
	prods, err := st.PutLookups(ctx, ws.ID, core.LookupProduct, listbench.ProductLabels)
	if err != nil {
		b.Fatal(err)
	}
	for _, p := range prods {
		sh.Products = append(sh.Products, p.ID)
	}
	base := time.Now().Add(-time.Duration(n) * time.Minute)
	if err := listbench.Records(ws.ID, n, base, sh.Tags, sh.Products, func(batch []core.NewRecord) error {
		_, err := st.CreateRecords(ctx, ws.ID, batch)
		return err
	}); err != nil {
		b.Fatal(err)
	}
	if err := st.FlushIndex(ctx); err != nil {
		b.Fatal(err)
	}
	// A fifth of the Feedback linked to an Idea, Zipf-spread so that some Ideas have many.
	if _, err := st.w.ExecContext(ctx, `INSERT INTO record_links(workspace_id, feedback_id, target_id, created_at)
		SELECT r.workspace_id, r.id, i.id, r.created_at FROM records r
		JOIN (SELECT id, row_number() OVER (ORDER BY id) - 1 AS k FROM records WHERE type = 'Idea') i
		  ON i.k = (abs(r.seq * 2654435761) % 997) % 50
		WHERE r.type = 'Feedback' AND r.seq % 5 = 0`); err != nil {
		b.Fatal(err)
	}
	// The planner's statistics as the daemon refreshes them (at open and hourly), which the readers, open
	// since before the fill, then read too.
	if err := st.write(ctx, "optimize", optimize); err != nil {
		b.Fatal(err)
	}
	if keep := os.Getenv("FEEDBRIDGE_BENCH_KEEP"); keep != "" {
		// A copy of the filled store, to read query plans from without filling again.
		if _, err := st.w.ExecContext(ctx, `VACUUM INTO ?`, keep); err != nil {
			b.Fatal(err)
		}
	}
	q := func(dst any, query string, args ...any) {
		if err := st.w.QueryRowContext(ctx, query, args...).Scan(dst); err != nil {
			b.Fatal(query, err)
		}
	}
	q(&sh.BigCompany, `SELECT id FROM companies WHERE workspace_id = ? ORDER BY feedback_count DESC LIMIT 1`, ws.ID)
	q(&sh.SmallCompany, `SELECT id FROM companies WHERE workspace_id = ? ORDER BY feedback_count ASC LIMIT 1`, ws.ID)
	q(&sh.Email, `SELECT lower(customer_email) FROM records WHERE customer_email <> '' GROUP BY lower(customer_email) ORDER BY count(*) DESC LIMIT 1`)
	q(&sh.Idea, `SELECT target_id FROM record_links GROUP BY target_id ORDER BY count(*) DESC LIMIT 1`)
	sh.CommonTag, sh.RareTag = sh.Tags[0], sh.Tags[len(sh.Tags)-1]
	sh.From, sh.To = listbench.Window(base, n)
	return st, ws.ID, sh
}

// BenchmarkListingFilters fills a store (100k records by default, FEEDBRIDGE_BENCH_RECORDS) with the
// listing data set and measures the first page of every listing of listbench.Cases as core.List asks for
// it (101 rows). It reports the p50 of the first page per case in ms, and the worst of them as max-p50-ms.
//
//	go test -run '^$' -bench ListingFilters -benchtime 1x ./store/sqlite/
func BenchmarkListingFilters(b *testing.B) {
	n := benchRecords(b)
	st, ws, sh := fillListing(b, n)
	ctx := context.Background()
	cases := listbench.Cases(sh)
	for b.Loop() {
		times, worst, err := listbench.Measure(cases, 15, func(q core.ListQuery) error {
			_, err := st.Records(ctx, ws, q)
			return err
		})
		if err != nil {
			b.Fatal(err)
		}
		for _, t := range times {
			b.ReportMetric(float64(t.P50.Microseconds())/1000, t.Name+":p50-ms")
		}
		b.ReportMetric(float64(times[worst].P50.Microseconds())/1000, "max-p50-ms")
		b.Logf("slowest listing: %s", times[worst].Name)
		b.Logf("slowest listings: %s", listbench.Slowest(times, 3))
	}
}

// BenchmarkReadMemory fills a store as BenchmarkListingFilters does, runs a read load on it (every listing
// case and searches, from six goroutines, for a few seconds), then reports the process's resident memory
// (VmRSS, after the load and a collection) and its peak (VmHWM) in MiB, and the Go heap in use. The page
// caches of the read pools are what the bound in openPools limits.
//
//	go test -run '^$' -bench ReadMemory -benchtime 1x ./store/sqlite/
func BenchmarkReadMemory(b *testing.B) {
	n := benchRecords(b)
	st, ws, sh := fillListing(b, n)
	ctx := context.Background()
	cases := listbench.Cases(sh)
	terms := []string{"and", "not", "when", "and the", "calix1", "timeout error"}
	for b.Loop() {
		deadline := time.Now().Add(8 * time.Second)
		var wg sync.WaitGroup
		for g := range 6 {
			wg.Go(func() {
				for i := g; time.Now().Before(deadline); i++ {
					q := listbench.Page(cases[i%len(cases)].Q)
					if i%3 == 0 {
						q.Search = terms[i%len(terms)]
					}
					if _, err := st.Records(ctx, ws, q); err != nil {
						b.Error(err)
						return
					}
				}
			})
		}
		wg.Wait()
		runtime.GC()
		debug.FreeOSMemory()
		rss, hwm := procStatusKB(b, "VmRSS:"), procStatusKB(b, "VmHWM:")
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		b.ReportMetric(float64(rss)/1024, "rss-MiB")
		b.ReportMetric(float64(hwm)/1024, "peak-rss-MiB")
		// Anonymous memory is the page caches and the heaps; file-backed memory is the writer's map of the
		// database file, which the kernel can drop.
		b.ReportMetric(float64(procStatusKB(b, "RssAnon:"))/1024, "rss-anon-MiB")
		b.ReportMetric(float64(procStatusKB(b, "RssFile:"))/1024, "rss-file-MiB")
		b.ReportMetric(float64(ms.HeapInuse)/(1<<20), "go-heap-MiB")
	}
}

// procStatusKB reads one kB figure of /proc/self/status.
func procStatusKB(b *testing.B, field string) int {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		b.Skip("no /proc/self/status:", err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, field); ok {
			var kb int
			if _, err := fmt.Sscanf(strings.TrimSpace(rest), "%d kB", &kb); err != nil {
				b.Fatal(line, err)
			}
			return kb
		}
	}
	b.Fatalf("%s not in /proc/self/status", field)
	return 0
}
