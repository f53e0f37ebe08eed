package sqlite

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/feedbridge/feedbridge/core"
)

// listingShape is the data set of BenchmarkListingFilters: most rows a new customer, company domains with
// a Zipf-like spread beside free-mail addresses, tags on a share of rows (a few common, many rare), products,
// sources and statuses mixed, and Feedback linked to Ideas on a share of rows.
type listingShape struct {
	tags, products []core.ID
	commonTag      core.ID // on about a tenth of the rows
	rareTag        core.ID
	bigCompany     core.ID // the most common domain's company
	smallCompany   core.ID
	email          string // a customer with a few records
	idea           core.ID
	from, to       time.Time // a window of about a tenth of the rows
}

// fillListing writes n records shaped as listingShape describes through the bulk path.
func fillListing(b *testing.B, n int) (*Store, core.ID, listingShape) {
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
	var sh listingShape
	labels := make([]string, 40)
	for i := range labels {
		labels[i] = fmt.Sprintf("tag-%02d", i)
	}
	tags, err := st.PutLookups(ctx, ws.ID, core.LookupTag, labels)
	if err != nil {
		b.Fatal(err)
	}
	for _, t := range tags {
		sh.tags = append(sh.tags, t.ID)
	}
	prods, err := st.PutLookups(ctx, ws.ID, core.LookupProduct, []string{"web", "ios", "android", "api", "desktop", "cli"})
	if err != nil {
		b.Fatal(err)
	}
	for _, p := range prods {
		sh.products = append(sh.products, p.ID)
	}
	c := newCorpus()
	rng := rand.New(rand.NewPCG(7, 11))
	domains := rand.NewZipf(rng, 1.2, 3, 399) // 400 company domains
	tagPick := rand.NewZipf(rng, 1.1, 2, 39)  // tag-00 is the common one
	free := []string{"gmail.com", "outlook.com", "yahoo.com", "proton.me"}
	sources := []string{"CSV", "API", "Email", "Slack", "Intercom"}
	statuses := []string{core.StatusTriage, core.StatusTriage, core.StatusTriage, core.StatusProcessed}
	base := time.Now().Add(-time.Duration(n) * time.Minute)
	for i := 0; i < n; i += 1000 {
		batch := make([]core.NewRecord, 0, 1000)
		for j := i; j < min(i+1000, n); j++ {
			r := c.record(ws.ID, base.Add(time.Duration(j)*time.Minute))
			r.Source = sources[rng.IntN(len(sources))]
			r.Status = statuses[rng.IntN(len(statuses))]
			cust := j // most rows a new customer
			if rng.IntN(4) == 0 {
				cust = rng.IntN(max(j, 1))
			}
			domain := fmt.Sprintf("company%d.example", domains.Uint64())
			ref := &core.ContactRef{}
			if cust%5 == 0 {
				ref.Email = fmt.Sprintf("person%d@%s", cust, free[cust%len(free)])
			} else {
				ref.Email = fmt.Sprintf("person%d@%s", cust, domain)
				ref.Domain, ref.CompanyName = domain, domain
			}
			ref.EmailKey = strings.ToLower(ref.Email)
			r.Contact = ref
			if rng.IntN(100) < 35 {
				k := 1 + rng.IntN(3)
				for range k {
					t := sh.tags[tagPick.Uint64()]
					if !slices.Contains(r.TagIDs, t) {
						r.TagIDs = append(r.TagIDs, t)
					}
				}
			}
			if rng.IntN(2) == 0 {
				r.ProductID = sh.products[rng.IntN(len(sh.products))]
			}
			batch = append(batch, r)
		}
		if _, err := st.CreateRecords(ctx, ws.ID, batch); err != nil {
			b.Fatal(err)
		}
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
	if _, err := st.w.ExecContext(ctx, `ANALYZE`); err != nil {
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
	q(&sh.bigCompany, `SELECT id FROM companies WHERE workspace_id = ? ORDER BY feedback_count DESC LIMIT 1`, ws.ID)
	q(&sh.smallCompany, `SELECT id FROM companies WHERE workspace_id = ? ORDER BY feedback_count ASC LIMIT 1`, ws.ID)
	q(&sh.email, `SELECT lower(customer_email) FROM records WHERE customer_email <> '' GROUP BY lower(customer_email) ORDER BY count(*) DESC LIMIT 1`)
	q(&sh.idea, `SELECT target_id FROM record_links GROUP BY target_id ORDER BY count(*) DESC LIMIT 1`)
	sh.commonTag, sh.rareTag = sh.tags[0], sh.tags[len(sh.tags)-1]
	sh.from, sh.to = base.Add(time.Duration(n/2)*time.Minute), base.Add(time.Duration(n/2+n/10)*time.Minute)
	return st, ws.ID, sh
}

// listingCases is every filter of GET /records alone, with a date window, and in the combinations a
// console or an integration asks for.
func listingCases(sh listingShape) []struct {
	name string
	q    core.ListQuery
} {
	yes, no := true, false
	type c = struct {
		name string
		q    core.ListQuery
	}
	cases := []c{
		{"type", core.ListQuery{Type: core.RecordFeedback}},
		{"type-idea", core.ListQuery{Type: core.RecordIdea}},
		{"status", core.ListQuery{Statuses: []string{core.StatusProcessed}}},
		{"source", core.ListQuery{Source: "Slack"}},
		{"company-big", core.ListQuery{CompanyID: sh.bigCompany}},
		{"company-small", core.ListQuery{CompanyID: sh.smallCompany}},
		{"tag-common", core.ListQuery{TagIDs: []core.ID{sh.commonTag}}},
		{"tag-rare", core.ListQuery{TagIDs: []core.ID{sh.rareTag}}},
		{"tags-two", core.ListQuery{TagIDs: []core.ID{sh.commonTag, sh.tags[1]}}},
		{"product", core.ListQuery{ProductID: sh.products[0]}},
		{"customer-email", core.ListQuery{CustomerEmailKey: sh.email}},
		{"linked", core.ListQuery{Type: core.RecordFeedback, Linked: &yes}},
		{"unlinked", core.ListQuery{Type: core.RecordFeedback, Linked: &no}},
		{"linked-to", core.ListQuery{LinkedTo: sh.idea}},
		{"updated-since", core.ListQuery{UpdatedSince: sh.from}},
		{"search", core.ListQuery{Search: "export"}},
		{"order-updated", core.ListQuery{Order: core.OrderUpdated}},
		{"order-demand", core.ListQuery{Type: core.RecordIdea, Order: core.OrderDemand}},
		{"asc", core.ListQuery{Asc: true}},
	}
	// Every one of them again within a date window, and the tag filter with every other one.
	n := len(cases)
	for _, k := range cases[:n] {
		w := k.q
		w.From, w.To = sh.from, sh.to
		w.TagIDs = slices.Clone(w.TagIDs)
		cases = append(cases, c{k.name + "+dates", w})
	}
	for _, k := range cases[:n] {
		if len(k.q.TagIDs) > 0 {
			continue
		}
		t := k.q
		t.TagIDs = []core.ID{sh.commonTag}
		cases = append(cases, c{k.name + "+tag", t})
		t.From, t.To = sh.from, sh.to
		cases = append(cases, c{k.name + "+tag+dates", t})
	}
	cases = append(cases, []c{
		{"type+status+source+product", core.ListQuery{Type: core.RecordFeedback, Statuses: []string{core.StatusTriage}, Source: "API", ProductID: sh.products[1]}},
		{"company+tag+search", core.ListQuery{CompanyID: sh.bigCompany, TagIDs: []core.ID{sh.commonTag}, Search: "dashboard"}},
		{"rare-tag+dates+search", core.ListQuery{TagIDs: []core.ID{sh.rareTag}, From: sh.from, To: sh.to, Search: "login"}},
	}...)
	return cases
}

// BenchmarkListingFilters fills a store (100k records by default, FEEDBRIDGE_BENCH_RECORDS) shaped as
// listingShape describes and measures the first page of every listing of listingCases as core.List asks
// for it (101 rows), then nine more pages by cursor. It reports the p50 of the first page per case in ms,
// and the worst of them as max-p50-ms.
//
//	go test -run '^$' -bench ListingFilters -benchtime 1x ./store/sqlite/
func BenchmarkListingFilters(b *testing.B) {
	n := benchRecords(b)
	st, ws, sh := fillListing(b, n)
	ctx := context.Background()
	cases := listingCases(sh)
	for b.Loop() {
		worst, worstName := 0.0, ""
		for _, k := range cases {
			var times []time.Duration
			for range 15 {
				q := k.q
				if q.Type == "" {
					q.Type = core.RecordFeedback // core.List always names a type
				}
				q.Limit = core.DefaultPageSize + 1
				t0 := time.Now()
				recs, err := st.Records(ctx, ws, q)
				if err != nil {
					b.Fatal(k.name, err)
				}
				times = append(times, time.Since(t0))
				_ = recs
			}
			slices.Sort(times)
			p50 := float64(times[len(times)/2].Microseconds()) / 1000
			b.ReportMetric(p50, k.name+":p50-ms")
			if p50 > worst {
				worst, worstName = p50, k.name
			}
		}
		b.ReportMetric(worst, "max-p50-ms")
		b.Logf("slowest listing: %s", worstName)
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
	cases := listingCases(sh)
	terms := []string{"export", "dashboard", "login", "slow export", "wbal1", "timeout error"}
	for b.Loop() {
		deadline := time.Now().Add(8 * time.Second)
		var wg sync.WaitGroup
		for g := range 6 {
			wg.Go(func() {
				for i := g; time.Now().Before(deadline); i++ {
					q := cases[i%len(cases)].q
					if i%3 == 0 {
						q.Search = terms[i%len(terms)]
					}
					if q.Type == "" {
						q.Type = core.RecordFeedback
					}
					q.Limit = core.DefaultPageSize + 1
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
