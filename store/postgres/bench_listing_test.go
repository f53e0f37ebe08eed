package postgres_test

import (
	"context"
	"errors"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/feedbridge/feedbridge/core"
	"github.com/feedbridge/feedbridge/store/internal/listbench"
	"github.com/feedbridge/feedbridge/store/postgres"
	"github.com/feedbridge/feedbridge/store/postgres/pgtest"
)

// listingKeepURL names a database that keeps the filled data set between runs of BenchmarkListingFilters;
// without it every run fills a throwaway schema.
const listingKeepURL = "FEEDBRIDGE_BENCH_LISTING_URL"

// listingMark is the checkpoint a finished fill leaves in its workspace, so that a later run reuses it;
// it changes with the data set, so that a fill of an older one is not measured.
const listingMark = "listing-bench-realdata"

// BenchmarkListingFilters fills a workspace with FEEDBRIDGE_BENCH_LISTING_ROWS records of the listing data
// set (default 1,000,000; listbench.Records, the same rows as the SQLite benchmark's) and measures the first
// page of every listing of listbench.Cases through the store as core.List asks for it (101 rows), nine
// times each (FEEDBRIDGE_BENCH_LISTING_ROUNDS). It reports the p50 per case in ms, and the worst of them
// as max-p50-ms; FEEDBRIDGE_BENCH_EXPLAIN=1 logs the plans of the listings slower than the target. The fill loads the rows with COPY,
// and reuses a finished fill of the same size in the database named by FEEDBRIDGE_BENCH_LISTING_URL.
//
//	FEEDBRIDGE_TEST_POSTGRES_URL=... go test -run '^$' -bench ListingFilters -benchtime 1x -timeout 60m ./store/postgres/
func BenchmarkListingFilters(b *testing.B) {
	n := 1_000_000
	if v := os.Getenv("FEEDBRIDGE_BENCH_LISTING_ROWS"); v != "" {
		var err error
		if n, err = strconv.Atoi(v); err != nil || n < 1000 {
			b.Fatalf("FEEDBRIDGE_BENCH_LISTING_ROWS=%q: want a number of at least 1000", v)
		}
	}
	rounds := 9
	if v := os.Getenv("FEEDBRIDGE_BENCH_LISTING_ROUNDS"); v != "" {
		var err error
		if rounds, err = strconv.Atoi(v); err != nil || rounds < 1 {
			b.Fatalf("FEEDBRIDGE_BENCH_LISTING_ROUNDS=%q: want a positive number", v)
		}
	}
	ctx := context.Background()
	var st *postgres.Store
	if u := os.Getenv(listingKeepURL); u != "" {
		var err error
		if st, err = postgres.Open(ctx, u); err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { st.Close() })
	} else {
		st = pgtest.Open(b)
	}
	ws, sh := listingData(b, st, n)
	cases := listbench.Cases(sh)
	for b.Loop() {
		times, worst, err := listbench.Measure(cases, rounds, func(q core.ListQuery) error {
			_, err := st.Records(ctx, ws, q)
			if errors.Is(err, core.ErrUnavailable) {
				// Past the store's time limit: measured as the limit, which misses the target anyway.
				return nil
			}
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
		if os.Getenv("FEEDBRIDGE_BENCH_EXPLAIN") != "" {
			explainSlow(b, st, ws, cases, times)
		}
	}
}

// explainSlow logs the plan of every listing slower than the target, as EXPLAIN (ANALYZE, BUFFERS) reads it.
func explainSlow(b *testing.B, st *postgres.Store, ws core.ID, cases []listbench.Case, times []listbench.Timing) {
	ctx := context.Background()
	for i, t := range times {
		if t.P50 < 20*time.Millisecond {
			continue
		}
		sql, args := postgres.ListSQL(ws, listbench.Page(cases[i].Q))
		rows, err := st.Pool().Query(ctx, "EXPLAIN (ANALYZE, BUFFERS) "+sql, append([]any{pgx.QueryExecModeExec}, args...)...)
		if err != nil {
			b.Fatal(err)
		}
		lines, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			b.Fatal(err)
		}
		b.Logf("%s (p50 %s):\n%s", t.Name, t.P50, strings.Join(lines, "\n"))
	}
}

// listingData finds a finished fill of n records or makes one, and returns its workspace and the values
// the listings filter on.
func listingData(b *testing.B, st *postgres.Store, n int) (core.ID, listbench.Shape) {
	ctx := context.Background()
	pool := st.Pool()
	name := "listing-" + strconv.Itoa(n)
	var ws core.ID
	err := pool.QueryRow(ctx, `SELECT w.id FROM workspaces w JOIN checkpoints c ON c.workspace_id = w.id AND c.name = $2
		WHERE w.name = $1 LIMIT 1`, name, listingMark).Scan(&ws)
	if errors.Is(err, pgx.ErrNoRows) {
		start := time.Now()
		ws = fillListing(b, st, name, n)
		b.Logf("filled %d records in %s", n, time.Since(start).Round(time.Second))
	} else if err != nil {
		b.Fatal(err)
	}
	var sh listbench.Shape
	ids := func(kind core.LookupKind) []core.ID {
		rows, err := pool.Query(ctx, `SELECT id FROM lookups WHERE workspace_id = $1 AND kind = $2 ORDER BY label`, ws, kind)
		if err != nil {
			b.Fatal(err)
		}
		out, err := pgx.CollectRows(rows, pgx.RowTo[core.ID])
		if err != nil {
			b.Fatal(err)
		}
		return out
	}
	sh.Tags, sh.Products = ids(core.LookupTag), nil
	for _, label := range listbench.ProductLabels {
		var id core.ID
		if err := pool.QueryRow(ctx, `SELECT id FROM lookups WHERE workspace_id = $1 AND kind = $2 AND label = $3`,
			ws, core.LookupProduct, label).Scan(&id); err != nil {
			b.Fatal(err)
		}
		sh.Products = append(sh.Products, id)
	}
	q := func(dst any, query string) {
		if err := pool.QueryRow(ctx, query, ws).Scan(dst); err != nil {
			b.Fatal(query, err)
		}
	}
	var base time.Time
	var folded string
	q(&folded, `SELECT company_counts_fold($1)::text`) // so that feedback_count is all of each count
	q(&sh.BigCompany, `SELECT id FROM companies WHERE workspace_id = $1 ORDER BY feedback_count DESC, id LIMIT 1`)
	q(&sh.SmallCompany, `SELECT id FROM companies WHERE workspace_id = $1 ORDER BY feedback_count ASC, id LIMIT 1`)
	q(&sh.Email, `SELECT lower(customer_email) FROM records WHERE workspace_id = $1 AND customer_email <> ''
		GROUP BY 1 ORDER BY count(*) DESC, 1 LIMIT 1`)
	q(&sh.Idea, `SELECT target_id FROM record_links WHERE workspace_id = $1 GROUP BY 1 ORDER BY count(*) DESC, 1 LIMIT 1`)
	q(&base, `SELECT min(created_at) FROM records WHERE workspace_id = $1`)
	sh.CommonTag, sh.RareTag = sh.Tags[0], sh.Tags[len(sh.Tags)-1]
	sh.From, sh.To = listbench.Window(base, n)
	return ws, sh
}

// fillListing loads n records of the listing data set with their contacts and companies by COPY (the
// company counts follow from the insert trigger), links a fifth of the Feedback to Ideas, builds the
// trigram index once afterwards and analyzes the tables.
func fillListing(b *testing.B, st *postgres.Store, name string, n int) core.ID {
	ctx := context.Background()
	pool := st.Pool()
	ws := core.Workspace{ID: core.NewID(), Name: name, Plan: core.PlanBusiness, CreatedAt: time.Now()}
	if err := st.CreateWorkspace(ctx, ws); err != nil {
		b.Fatal(err)
	}
	lookups := func(kind core.LookupKind, labels []string) []core.ID {
		ls, err := st.PutLookups(ctx, ws.ID, kind, labels)
		if err != nil {
			b.Fatal(err)
		}
		out := make([]core.ID, len(ls))
		for i, l := range ls {
			out[i] = l.ID
		}
		return out
	}
	tags, products := lookups(core.LookupTag, listbench.TagLabels), lookups(core.LookupProduct, listbench.ProductLabels)
	exec := func(sql string, args ...any) {
		if _, err := pool.Exec(ctx, sql, args...); err != nil {
			b.Fatalf("%s: %v", sql, err)
		}
	}
	exec(`DROP INDEX records_search`)
	companies, contacts := map[string]string{}, map[string]string{}
	copyRows := func(table string, cols []string, rows [][]any) error {
		if len(rows) == 0 {
			return nil
		}
		_, err := pool.CopyFrom(ctx, pgx.Identifier{table}, cols, pgx.CopyFromRows(rows))
		return err
	}
	base := time.Now().Add(-time.Duration(n) * time.Minute)
	err := listbench.Records(ws.ID, n, base, tags, products, func(batch []core.NewRecord) error {
		var newCompanies, newContacts, recs [][]any
		for _, r := range batch {
			c := r.Contact
			company := ""
			if c.Domain != "" {
				if company = companies[c.Domain]; company == "" {
					company = string(core.NewID())
					companies[c.Domain] = company
					newCompanies = append(newCompanies, []any{ws.ID, company, c.CompanyName, c.Domain})
				}
			}
			contact := contacts[c.EmailKey]
			if contact == "" {
				contact = string(core.NewID())
				contacts[c.EmailKey] = contact
				newContacts = append(newContacts, []any{ws.ID, contact, c.Email, c.EmailKey, company})
			}
			tagIDs := make([]string, len(r.TagIDs))
			for i, t := range r.TagIDs {
				tagIDs[i] = string(t)
			}
			recs = append(recs, []any{ws.ID, r.ID, r.Type, r.Title, r.DescriptionHTML, r.Description, r.SearchText,
				r.Status, r.Source, r.ProductID, tagIDs, contact, company, c.Email, r.CreatedAt, r.UpdatedAt})
		}
		if err := copyRows("companies", []string{"workspace_id", "id", "name", "domain"}, newCompanies); err != nil {
			return err
		}
		if err := copyRows("contacts", []string{"workspace_id", "id", "email", "email_key", "company_id"}, newContacts); err != nil {
			return err
		}
		return copyRows("records", []string{"workspace_id", "id", "type", "title", "description_html", "description",
			"search_text", "status", "source", "product_id", "tag_ids", "contact_id", "company_id", "customer_email",
			"created_at", "updated_at"}, recs)
	})
	if err != nil {
		b.Fatal(err)
	}
	// A fifth of the Feedback linked to an Idea, spread by a hash of its id so that some Ideas have many.
	exec(`INSERT INTO record_links (workspace_id, feedback_id, target_id, created_at)
		SELECT r.workspace_id, r.id, i.id, r.created_at FROM records r
		JOIN (SELECT id, row_number() OVER (ORDER BY id) - 1 AS k FROM records WHERE workspace_id = $1 AND type = 'Idea') i
		  ON i.k = (abs(hashtext(r.id)::bigint * 2654435761) % 997) % 50
		WHERE r.workspace_id = $1 AND r.type = 'Feedback' AND abs(hashtext(r.id || 'l')) % 5 = 0`, ws.ID)
	exec(`UPDATE records r SET feedback_count = c.n FROM (SELECT target_id, count(*) AS n FROM record_links
		WHERE workspace_id = $1 GROUP BY target_id) c WHERE r.workspace_id = $1 AND r.id = c.target_id`, ws.ID)
	// One Exec, so that the setting applies to the connection that builds the index.
	exec(`SET maintenance_work_mem = '256MB'; CREATE INDEX records_search ON records USING gin (search_text gin_trgm_ops)`)
	exec(`VACUUM ANALYZE records`)
	exec(`ANALYZE record_links`)
	exec(`ANALYZE companies`)
	exec(`ANALYZE contacts`)
	if err := st.SetCheckpoint(ctx, ws.ID, core.Checkpoint{Name: listingMark, Value: "filled"}); err != nil {
		b.Fatal(err)
	}
	return ws.ID
}
