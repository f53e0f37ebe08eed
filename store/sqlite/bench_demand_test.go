package sqlite

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/feedbridge/feedbridge/core"
)

// BenchmarkDemandListing fills a store (100k records, a quarter of them Ideas) with feedback counts spread
// over 0-49 and measures GET /records?order=demand below HTTP (core.Service.List): the first page of 100
// Ideas, and a page on average over a walk of ten pages by their cursors, against the same in creation
// order. It reports the p50 of each in µs.
//
//	go test -run '^$' -bench DemandListing -benchtime 1x ./store/sqlite/
func BenchmarkDemandListing(b *testing.B) {
	ctx := context.Background()
	st, ws, _ := fill(b, 100_000)
	if _, err := st.w.ExecContext(ctx, `UPDATE records SET feedback_count = abs(random()) % 50 WHERE type = 'Idea'`); err != nil {
		b.Fatal(err)
	}
	if _, err := st.w.ExecContext(ctx, `ANALYZE`); err != nil {
		b.Fatal(err)
	}
	svc := core.NewService(st, core.Options{})
	measure := func(order string, page int) time.Duration {
		var times []time.Duration
		for range 30 {
			req := core.ListRequest{Order: order}
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
		for _, c := range []struct {
			order, name string
			page        int
		}{{"demand", "demand-page1", 1}, {"demand", "demand-10pages", 10}, {"created", "created-page1", 1}, {"created", "created-10pages", 10}} {
			b.ReportMetric(float64(measure(c.order, c.page).Microseconds()), c.name+"-p50-us")
		}
	}
}
