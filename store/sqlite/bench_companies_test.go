package sqlite

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/feedbridge/feedbridge/core"
	"github.com/feedbridge/feedbridge/store/internal/listbench"
)

// BenchmarkCompanyCount measures what keeping feedback_count costs and saves. Two stores take the same
// batches of 1,000 records with customers (500 companies), alternately: one as migrated, one with the count
// triggers of deletions and moves dropped (creates are counted by a later fold, code that both stores run).
// Reported: both stores' bulk rows/s and their ratio, then on the full stores the time of GET /companies'
// query (first page of 100, by the kept count, with the fold of whatever the indexer has not folded yet)
// and of counting the same at read time.
//
//	go test -run '^$' -bench CompanyCount -benchtime 200x ./store/sqlite/
func BenchmarkCompanyCount(b *testing.B) {
	ctx := context.Background()
	open := func(name string, triggers bool) (*Store, core.ID) {
		st, err := Open(ctx, filepath.Join(b.TempDir(), name))
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { st.Close() })
		if !triggers {
			for _, t := range []string{"records_count_delete", "records_count_update"} {
				if _, err := st.w.ExecContext(ctx, `DROP TRIGGER `+t); err != nil {
					b.Fatal(err)
				}
			}
		}
		ws := core.Workspace{ID: core.NewID(), Name: "bench", Plan: core.PlanBusiness, CreatedAt: time.Now()}
		if err := st.CreateWorkspace(ctx, ws); err != nil {
			b.Fatal(err)
		}
		return st, ws.ID
	}
	counted, cws := open("counted.db", true)
	plain, pws := open("plain.db", false)
	c := listbench.NewCorpus()
	at := time.Now().Add(-24 * time.Hour)
	var countedTime, plainTime time.Duration
	for i := 0; b.Loop(); i++ {
		batch := make([]core.NewRecord, 1000)
		for j := range batch {
			at = at.Add(time.Millisecond)
			batch[j] = c.Record(cws, at)
			ct := batch[j].Contact
			ct.EmailKey, ct.Domain = ct.Email, ct.Email[strings.IndexByte(ct.Email, '@')+1:]
			ct.CompanyName = ct.Domain
		}
		other := make([]core.NewRecord, len(batch))
		for j, r := range batch {
			ct := *r.Contact
			r.ID, r.Contact = core.NewIDAt(r.CreatedAt), &ct
			other[j] = r
		}
		runs := []func(){
			func() { countedTime += timedBulk(b, counted, cws, batch) },
			func() { plainTime += timedBulk(b, plain, pws, other) },
		}
		if i%2 == 1 {
			runs[0], runs[1] = runs[1], runs[0]
		}
		runs[0]()
		runs[1]()
	}
	n := float64(b.N * 1000)
	b.ReportMetric(n/countedTime.Seconds(), "counted_rows/s")
	b.ReportMetric(n/plainTime.Seconds(), "plain_rows/s")
	b.ReportMetric(plainTime.Seconds()/countedTime.Seconds(), "ratio")

	began := time.Now()
	cs, err := counted.CompanyList(ctx, cws, core.CompanyQuery{Limit: 101})
	if err != nil || len(cs) == 0 {
		b.Fatalf("list: %d, %v", len(cs), err)
	}
	b.ReportMetric(float64(time.Since(began).Microseconds())/1000, "list_ms")
	began = time.Now()
	rows, err := plain.r.QueryContext(ctx, `SELECT company_id, count(*) AS n FROM records WHERE workspace_id = ?
		AND company_id IS NOT NULL GROUP BY company_id ORDER BY n DESC, company_id LIMIT 101`, pws)
	if err != nil {
		b.Fatal(err)
	}
	for rows.Next() {
	}
	rows.Close()
	b.ReportMetric(float64(time.Since(began).Microseconds())/1000, "count_at_read_ms")
}

func timedBulk(b *testing.B, st *Store, ws core.ID, rs []core.NewRecord) time.Duration {
	began := time.Now()
	if _, err := st.CreateRecords(context.Background(), ws, rs); err != nil {
		b.Fatal(err)
	}
	return time.Since(began)
}
