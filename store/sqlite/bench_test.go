package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/feedbridge/feedbridge/core"
	"github.com/feedbridge/feedbridge/store/internal/listbench"
)

// benchRecords is the size of the search benchmark's store: 100k by default, FEEDBRIDGE_BENCH_RECORDS for more.
func benchRecords(b *testing.B) int {
	if v := os.Getenv("FEEDBRIDGE_BENCH_RECORDS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			b.Fatalf("FEEDBRIDGE_BENCH_RECORDS=%q: want a positive number", v)
		}
		return n
	}
	return 100_000
}

// fill writes n records into a fresh store through the bulk path and returns the store and the rate.
func fill(b *testing.B, n int) (*Store, core.ID, float64) {
	ctx := context.Background()
	st, err := Open(ctx, filepath.Join(b.TempDir(), "bench.db"))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close() })
	ws := core.Workspace{ID: core.NewID(), Name: "bench", Plan: core.PlanBusiness, CreatedAt: time.Now()}
	if err := st.CreateWorkspace(ctx, ws); err != nil {
		b.Fatal(err)
	}
	c := listbench.NewCorpus()
	start, base := time.Now(), time.Now().Add(-time.Duration(n)*time.Minute)
	for i := 0; i < n; i += 1000 {
		batch := make([]core.NewRecord, 0, 1000)
		for j := i; j < min(i+1000, n); j++ {
			r := c.Record(ws.ID, base.Add(time.Duration(j)*time.Minute))
			r.Contact.EmailKey = r.Contact.Email
			r.Contact.Domain = r.Contact.Email[strings.IndexByte(r.Contact.Email, '@')+1:]
			r.Contact.CompanyName = r.Contact.Domain
			batch = append(batch, r)
		}
		if _, err := st.CreateRecords(ctx, ws.ID, batch); err != nil {
			b.Fatal(err)
		}
	}
	if err := st.FlushIndex(ctx); err != nil {
		b.Fatal(err)
	}
	rate := float64(n) / time.Since(start).Seconds()
	if _, err := st.w.ExecContext(ctx, `ANALYZE`); err != nil {
		b.Fatal(err)
	}
	return st, ws.ID, rate
}

// BenchmarkSearch fills a store (100k records by default) and measures GET-style searches: the first page
// (101 rows, as core.List asks) of Feedback matching a term, for terms from very common to absent. It
// reports p50 and p95 per plan; "ordered" is what the store uses.
func BenchmarkSearch(b *testing.B) {
	n := benchRecords(b)
	st, ws, rate := fill(b, n)
	b.Logf("filled %d records through CreateRecords at %.0f records/s", n, rate)
	// From the most common word to absent ones, a rare phrase of common words, and 1–2 character terms
	// (which have no trigram and scan the listing in order).
	// "and" is in most records and "not" in about half; calix1 and simly2999 are the most and the least
	// common of the vocabulary's long tail.
	terms := []string{"and", "not", "straße", "RÉSUMÉ", "calix1", "simly2999", "and the", "timeout error",
		"no such words here", "ab", "é"}
	modes := []struct {
		name string
		mode searchMode
	}{{"ordered", searchOrdered}, {"sorted", searchSorted}, {"scan", searchScan}}
	for _, m := range modes {
		b.Run(m.name, func(b *testing.B) {
			st.mode = m.mode
			defer func() { st.mode = searchOrdered }()
			searchLatencies(b, st, ws, terms)
		})
	}
	// A small workspace beside the large one: its searches must not pay for the other's records.
	small := core.Workspace{ID: core.NewID(), Name: "small", Plan: core.PlanPro, CreatedAt: time.Now()}
	if err := st.CreateWorkspace(context.Background(), small); err != nil {
		b.Fatal(err)
	}
	c := listbench.NewCorpus()
	var batch []core.NewRecord
	for i := range 1000 {
		r := c.Record(small.ID, time.Now().Add(-time.Duration(i)*time.Hour))
		r.Contact = nil
		batch = append(batch, r)
	}
	if _, err := st.CreateRecords(context.Background(), small.ID, batch); err != nil {
		b.Fatal(err)
	}
	b.Run("small-workspace", func(b *testing.B) {
		searchLatencies(b, st, small.ID, terms)
	})
	for _, term := range terms {
		b.Run("term="+term, func(b *testing.B) {
			q := core.ListQuery{Type: core.RecordFeedback, Search: core.Fold(term), Limit: core.DefaultPageSize + 1}
			for b.Loop() {
				if _, err := st.Records(context.Background(), ws, q); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// searchLatencies runs a first-page search of Feedback for each term per iteration and reports the p50,
// p95 and largest latency.
func searchLatencies(b *testing.B, st *Store, ws core.ID, terms []string) {
	var lat []time.Duration
	for b.Loop() {
		for _, term := range terms {
			q := core.ListQuery{Type: core.RecordFeedback, Search: core.Fold(term), Limit: core.DefaultPageSize + 1}
			t0 := time.Now()
			if _, err := st.Records(context.Background(), ws, q); err != nil {
				b.Fatal(err)
			}
			lat = append(lat, time.Since(t0))
		}
	}
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(lat[len(lat)*95/100].Microseconds())/1000, "p95-ms")
	b.ReportMetric(float64(lat[len(lat)-1].Microseconds())/1000, "max-ms")
}

// BenchmarkSearchQueued measures searches while the indexer's queue holds 10,000 or 50,000 records (the
// most it holds, during a bulk import): the fill's newest records are put back in the queue, and the
// indexer, not woken, leaves them there. It reports p50, p95 and the largest latency per queue length.
func BenchmarkSearchQueued(b *testing.B) {
	st, ws, _ := fill(b, benchRecords(b))
	terms := []string{"and", "not", "straße", "calix1", "and the", "timeout error", "no such words here"}
	for _, n := range []int{0, 10_000, indexBatch} {
		b.Run(fmt.Sprintf("queued=%d", n), func(b *testing.B) {
			if _, err := st.w.Exec(`INSERT INTO records_fts_pending(seq) SELECT seq FROM records ORDER BY seq LIMIT ?`, n); err != nil {
				b.Fatal(err)
			}
			defer st.w.Exec(`DELETE FROM records_fts_pending`)
			searchLatencies(b, st, ws, terms)
		})
	}
}

// BenchmarkCreate measures one record per transaction: through core.Service (validation, contact and
// company, full-text entry, insight job), and a bare single-row INSERT of the same row into the same kind of
// file, the physical limit the API's create is compared with.
func BenchmarkCreate(b *testing.B) {
	ctx := context.Background()
	b.Run("service", func(b *testing.B) {
		st, err := Open(ctx, filepath.Join(b.TempDir(), "create.db"))
		if err != nil {
			b.Fatal(err)
		}
		defer st.Close()
		svc := core.NewService(st, core.Options{})
		ws, err := svc.CreateWorkspace(ctx, "bench", core.PlanBusiness, 0)
		if err != nil {
			b.Fatal(err)
		}
		var n atomic.Int64
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				i := n.Add(1)
				_, err := svc.Submit(ctx, ws.ID, core.Submission{Type: core.RecordFeedback, Title: "Export is slow",
					Description:   "The CSV export times out after 30 seconds on large workspaces.",
					CustomerEmail: fmt.Sprintf("u%d@c%d.com", i%5000, i%500)})
				if err != nil {
					b.Error(err)
					return
				}
			}
		})
		b.ReportMetric(float64(st.grouped.Load())/float64(max(1, st.commits.Load())), "writes/commit")
	})
	b.Run("bare-insert", func(b *testing.B) {
		path := filepath.Join(b.TempDir(), "bare.db")
		st, err := Open(ctx, path)
		if err != nil {
			b.Fatal(err)
		}
		ws := core.Workspace{ID: core.NewID(), Name: "bench", Plan: core.PlanBusiness, CreatedAt: time.Now()}
		if err := st.CreateWorkspace(ctx, ws); err != nil {
			b.Fatal(err)
		}
		st.Close()
		db, err := sql.Open("sqlite", dsn(path, busyTimeout, ""))
		if err != nil {
			b.Fatal(err)
		}
		defer db.Close()
		db.SetMaxOpenConns(1)
		var seq atomic.Int64
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				now := time.Now().UnixMilli()
				_, err := db.ExecContext(ctx, `INSERT INTO records(seq, id, workspace_id, type, title, description_html,
					description, search_text, status, source, customer_email, created_at, updated_at)
					VALUES (?, ?, ?, 'Feedback', ?, ?, ?, ?, 'Triage', 'API', ?, ?, ?)`,
					seq.Add(1), core.NewID(), ws.ID, "Export is slow", "The CSV export times out after 30 seconds on large workspaces.",
					"The CSV export times out after 30 seconds on large workspaces.", "export is slow\nthe csv export times out after 30 seconds on large workspaces.",
					"u1@c1.com", now, now)
				if err != nil {
					b.Error(err)
					return
				}
			}
		})
	})
}

// BenchmarkCreateRecords measures the importers' bulk path: batches of 1000 feedback records with
// customers, in one transaction each.
func BenchmarkCreateRecords(b *testing.B) {
	ctx := context.Background()
	st, err := Open(ctx, filepath.Join(b.TempDir(), "bulk.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	ws := core.Workspace{ID: core.NewID(), Name: "bench", Plan: core.PlanBusiness, CreatedAt: time.Now()}
	if err := st.CreateWorkspace(ctx, ws); err != nil {
		b.Fatal(err)
	}
	c := listbench.NewCorpus()
	at := time.Now().Add(-24 * time.Hour)
	start := time.Now()
	for b.Loop() {
		batch := make([]core.NewRecord, 1000)
		for i := range batch {
			at = at.Add(time.Millisecond)
			batch[i] = c.Record(ws.ID, at)
			email := batch[i].Contact.Email
			batch[i].Contact.EmailKey = email
			batch[i].Contact.Domain = email[strings.IndexByte(email, '@')+1:]
			batch[i].Contact.CompanyName = batch[i].Contact.Domain
		}
		if _, err := st.CreateRecords(ctx, ws.ID, batch); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N*1000)/time.Since(start).Seconds(), "records/s")
}

// BenchmarkCreateEvents measures one create at a time through core.Service in a workspace without a
// subscriber and in one with a subscriber of record.created (its event written in the create's transaction,
// nobody delivering it): the difference is what the event costs the write path. The two arms alternate in
// blocks of 100 creates on the same store, so that both see the same file and the same machine load.
func BenchmarkCreateEvents(b *testing.B) {
	ctx := context.Background()
	_, svc, plain, subbed := openSubscribed(b, "events.db")
	var took [2]time.Duration
	var n [2]int
	for i := 0; b.Loop(); i++ {
		arm := (i / 100) % 2
		ws := [2]core.ID{plain.ID, subbed.ID}[arm]
		t0 := time.Now()
		if _, err := svc.Submit(ctx, ws, core.Submission{Type: core.RecordFeedback, Title: "Export is slow",
			Description:   "The CSV export times out after 30 seconds on large workspaces.",
			CustomerEmail: fmt.Sprintf("u%d@c%d.com", i%5000, i%500)}); err != nil {
			b.Fatal(err)
		}
		took[arm] += time.Since(t0)
		n[arm]++
	}
	b.ReportMetric(float64(took[0].Microseconds())/float64(max(n[0], 1)), "µs/create-without")
	b.ReportMetric(float64(took[1].Microseconds())/float64(max(n[1], 1)), "µs/create-with")
}

// openSubscribed opens a store in a file of b's and two workspaces on it, plain without a subscriber and
// subbed with one of record.created (named "bench", nobody delivering), for the event benchmarks.
func openSubscribed(b testing.TB, file string) (st *Store, svc *core.Service, plain, subbed core.Workspace) {
	b.Helper()
	ctx := context.Background()
	st, err := Open(ctx, filepath.Join(b.TempDir(), file))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close() })
	svc = core.NewService(st, core.Options{})
	if plain, err = svc.CreateWorkspace(ctx, "plain", core.PlanBusiness, 0); err != nil {
		b.Fatal(err)
	}
	if subbed, err = svc.CreateWorkspace(ctx, "subscribed", core.PlanBusiness, 0); err != nil {
		b.Fatal(err)
	}
	svc.SetSubscribers([]core.Subscriber{{Name: "bench", Workspace: subbed.ID, Events: []string{core.EventRecordCreated}}})
	return st, svc, plain, subbed
}
