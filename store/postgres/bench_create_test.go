package postgres_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/feedbridge/feedbridge/core"
	"github.com/feedbridge/feedbridge/store/postgres/pgtest"
)

// BenchmarkCreateVsInsert compares the API's create path below HTTP (core.Service.Submit of a feedback with
// a customer and a description: record, contact, company and insight job in one transaction) and the
// store's part of it (CreateRecord) with a bare single-row INSERT of the same record, each from 8
// concurrent clients, interleaved in the same run. ratio = service creates/s ÷ bare inserts/s,
// store_ratio = store creates/s ÷ bare inserts/s. The HTTP layer's own benchmark builds on this.
//
//	FEEDBRIDGE_TEST_POSTGRES_URL=... go test -run '^$' -bench CreateVsInsert -benchtime 20x ./store/postgres/
func BenchmarkCreateVsInsert(b *testing.B) {
	ctx := context.Background()
	st := pgtest.Open(b)
	svc := core.NewService(st, core.Options{})
	a, raw := workspace(b, st, 0), workspace(b, st, 0)
	const clients, each = 8, 25
	gen := newFeedbackGen(3)
	var mu sync.Mutex
	next := func() core.NewRecord {
		mu.Lock()
		defer mu.Unlock()
		return gen.recordAt(time.Now())
	}
	run := func(fn func(r core.NewRecord) error) time.Duration {
		var wg sync.WaitGroup
		start := time.Now()
		for range clients {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for range each {
					if err := fn(next()); err != nil {
						b.Error(err)
						return
					}
				}
			}()
		}
		wg.Wait()
		return time.Since(start)
	}
	submit := func(r core.NewRecord) error {
		_, err := svc.Submit(ctx, a.ID, core.Submission{Type: core.RecordFeedback, Title: r.Title, Description: r.Description,
			CustomerEmail: r.Contact.Email, Source: "API"})
		return err
	}
	bare := func(r core.NewRecord) error {
		_, err := st.Pool().Exec(ctx, `INSERT INTO records (workspace_id, id, type, title, description_html, description,
			search_text, status, source, customer_email, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
			raw.ID, r.ID, r.Type, r.Title, r.DescriptionHTML, r.Description, r.SearchText, r.Status, r.Source, r.Contact.Email,
			r.CreatedAt, r.UpdatedAt)
		return err
	}
	// The store alone, without the service's own work (validation, and its read of the workspace).
	direct := func(r core.NewRecord) error {
		r.DedupKey = ""
		_, _, err := st.CreateRecord(ctx, a.ID, r)
		return err
	}
	fns := []func(core.NewRecord) error{submit, direct, bare}
	tot := make([]time.Duration, len(fns))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		// Rotate the order so that none always meets the bigger table or the fuller trigram pending list.
		for k := range fns {
			j := (i + k) % len(fns)
			tot[j] += run(fns[j])
		}
	}
	n := float64(b.N * clients * each)
	b.ReportMetric(n/tot[0].Seconds(), "service_creates/s")
	b.ReportMetric(n/tot[1].Seconds(), "store_creates/s")
	b.ReportMetric(n/tot[2].Seconds(), "bare_inserts/s")
	b.ReportMetric(tot[2].Seconds()/tot[0].Seconds(), "ratio")
	b.ReportMetric(tot[2].Seconds()/tot[1].Seconds(), "store_ratio")
}
