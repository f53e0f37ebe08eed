package postgres_test

import (
	"context"
	"os"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/feedbridge/feedbridge/core"
	"github.com/feedbridge/feedbridge/store/postgres"
	"github.com/feedbridge/feedbridge/store/postgres/pgtest"
)

// BenchmarkBulkVsCopy writes batches of 1,000 CSV-like feedback rows through CreateRecords (staging COPY,
// companies, contacts, dedup, insight jobs) and, interleaved in the same run, the same rows with a bare pgx
// CopyFrom into the same records table: the physical limit. ratio = store rows/s ÷ CopyFrom rows/s.
//
//	FEEDBRIDGE_TEST_POSTGRES_URL=... go test -run '^$' -bench BulkVsCopy -benchtime 20x ./store/postgres/
func BenchmarkBulkVsCopy(b *testing.B) {
	ctx := context.Background()
	st := pgtest.Open(b)
	a, raw := workspace(b, st, 0), workspace(b, st, 0)
	gen := newFeedbackGen(1)
	const batch = 1000
	var storeTime, copyTime time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		rs := make([]core.NewRecord, batch)
		for j := range rs {
			rs[j] = gen.record(time.Now())
		}
		b.StartTimer()
		// Alternate which goes first so that neither always meets the bigger table or the warmer cache.
		runs := []func(){
			func() { storeTime += timed(b, func() error { _, err := st.CreateRecords(ctx, a.ID, rs); return err }) },
			func() { copyTime += timed(b, func() error { return rawCopy(ctx, st, raw.ID, rs) }) },
		}
		if i%2 == 1 {
			runs[0], runs[1] = runs[1], runs[0]
		}
		runs[0]()
		runs[1]()
	}
	n := float64(b.N * batch)
	b.ReportMetric(n/storeTime.Seconds(), "store_rows/s")
	b.ReportMetric(n/copyTime.Seconds(), "copy_rows/s")
	b.ReportMetric(copyTime.Seconds()/storeTime.Seconds(), "ratio")
}

func timed(b *testing.B, fn func() error) time.Duration {
	start := time.Now()
	if err := fn(); err != nil {
		b.Fatal(err)
	}
	return time.Since(start)
}

// rawCopy is the baseline: the rows' final column values straight into records, one COPY, one commit.
func rawCopy(ctx context.Context, st *postgres.Store, ws core.ID, rs []core.NewRecord) error {
	rows := make([][]any, len(rs))
	for i, r := range rs {
		rows[i] = []any{string(ws), string(r.ID), string(r.Type), r.Title, r.DescriptionHTML, r.Description, r.SearchText,
			r.Status, r.Source, r.Contact.Email, r.DedupKey, r.CreatedAt, r.UpdatedAt}
	}
	_, err := st.Pool().CopyFrom(ctx, pgx.Identifier{"records"}, []string{"workspace_id", "id", "type", "title",
		"description_html", "description", "search_text", "status", "source", "customer_email", "dedup_key",
		"created_at", "updated_at"}, pgx.CopyFromRows(rows))
	return err
}

// BenchmarkSearch fills one workspace with FEEDBRIDGE_BENCH_SEARCH_ROWS feedback records (default
// 1,000,000; COPY with the trigram index built afterwards), then times the listing the API runs for
// GET /records?record_type=Feedback&search=TERM (limit 100, plus one to detect the next page).
// Sub-benchmark "mixed" rotates through every term and reports p50 and p95.
//
//	FEEDBRIDGE_TEST_POSTGRES_URL=... go test -run '^$' -bench Search -benchtime 400x -timeout 60m ./store/postgres/
func BenchmarkSearch(b *testing.B) {
	ctx := context.Background()
	n := 1_000_000
	if v := os.Getenv("FEEDBRIDGE_BENCH_SEARCH_ROWS"); v != "" {
		var err error
		if n, err = strconv.Atoi(v); err != nil {
			b.Fatalf("FEEDBRIDGE_BENCH_SEARCH_ROWS: %v", err)
		}
	}
	st := pgtest.Open(b)
	ws := workspace(b, st, 0)
	start := time.Now()
	fillRecords(b, st, ws.ID, n)
	b.Logf("filled %d records in %s", n, time.Since(start).Round(time.Second))

	terms := []string{
		"login",        // common word
		"invoice",      // middling
		"kubernetes",   // rare
		"export csv",   // phrase
		"STRASSE",      // folds to a stored "straße"
		"webhook time", // phrase across words
		"zzqx",         // matches nothing
		"ui",           // two letters, found nowhere: no trigram to use, a full scan
		"ok",           // two letters, common
	}
	search := func(b *testing.B, term string) time.Duration {
		q, err := core.ParseListRequest(core.ListRequest{RecordType: "Feedback", Search: term})
		if err != nil {
			b.Fatal(err)
		}
		q.Limit++
		t0 := time.Now()
		if _, err := st.Records(ctx, ws.ID, q); err != nil {
			b.Fatal(err)
		}
		return time.Since(t0)
	}
	report := func(b *testing.B, lat []time.Duration) {
		slices.Sort(lat)
		b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50_ms")
		b.ReportMetric(float64(lat[len(lat)*95/100].Microseconds())/1000, "p95_ms")
	}
	b.Run("mixed", func(b *testing.B) {
		lat := make([]time.Duration, 0, b.N)
		for i := 0; i < b.N; i++ {
			lat = append(lat, search(b, terms[i%len(terms)]))
		}
		report(b, lat)
	})
	for _, term := range terms {
		b.Run(term, func(b *testing.B) {
			lat := make([]time.Duration, 0, b.N)
			for i := 0; i < b.N; i++ {
				lat = append(lat, search(b, term))
			}
			report(b, lat)
		})
	}
}

// fillRecords loads n generated records with COPY, building the trigram index once afterwards (far
// faster than maintaining it row by row), and analyzes the table as autovacuum eventually would. The
// records are created oldest first over two years, as feedback arriving through the API, Slack and email
// is: the table's order then follows the listing index, as it does in a live database.
func fillRecords(b *testing.B, st *postgres.Store, ws core.ID, n int) {
	ctx := context.Background()
	pool := st.Pool()
	exec := func(sql string) {
		if _, err := pool.Exec(ctx, sql); err != nil {
			b.Fatalf("%s: %v", sql, err)
		}
	}
	exec(`DROP INDEX records_search`)
	gen := newFeedbackGen(7)
	start, step := time.Now().Add(-2*365*24*time.Hour), 2*365*24*time.Hour/time.Duration(n)
	const chunk = 50_000
	for done := 0; done < n; done += chunk {
		rs := make([]core.NewRecord, min(chunk, n-done))
		for i := range rs {
			rs[i] = gen.recordAt(start.Add(time.Duration(done+i) * step))
		}
		if err := rawCopy(ctx, st, ws, rs); err != nil {
			b.Fatal(err)
		}
	}
	// One Exec, so that the setting applies to the connection that builds the index.
	exec(`SET maintenance_work_mem = '256MB'; CREATE INDEX records_search ON records USING gin (search_text gin_trgm_ops)`)
	exec(`ANALYZE records`)
}
