package sqlite

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/feedbridge/feedbridge/core"
)

// TestSearchReadsTheIndexerQueue writes records one at a time and in a bulk batch (all queued for the
// indexer), drains the queue now and then, and checks after every step that
// paged searches in both directions return exactly the matching records in order, whichever of the two
// places their entries are in.
func TestSearchReadsTheIndexerQueue(t *testing.T) {
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "queue.db")
	st := openT(t, path)
	ws := core.Workspace{ID: core.NewID(), Name: "q", Plan: core.PlanBusiness, CreatedAt: time.Now()}
	if err := st.CreateWorkspace(ctx, ws); err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	base := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	var all []core.NewRecord
	record := func(i int) core.NewRecord {
		// Several hour blocks, with ties in creation time, and a third of the titles matching.
		at := base.Add(time.Duration(rng.IntN(5*60)) * time.Minute)
		title := fmt.Sprintf("note %d", i)
		if rng.IntN(3) == 0 {
			title = fmt.Sprintf("Export NEEDLE %d", i)
		}
		nr := core.NewRecord{ID: core.NewIDAt(at), Type: core.RecordFeedback, Title: title, SearchText: core.Fold(title),
			Status: core.StatusTriage, Source: "API", CreatedAt: at, UpdatedAt: at}
		all = append(all, nr)
		return nr
	}
	check := func(step string) {
		t.Helper()
		var want []core.ID
		sorted := slices.Clone(all)
		slices.SortFunc(sorted, func(a, b core.NewRecord) int {
			return cmp.Or(a.CreatedAt.Compare(b.CreatedAt), strings.Compare(string(a.ID), string(b.ID)))
		})
		for _, nr := range sorted {
			if strings.Contains(nr.SearchText, "needle") {
				want = append(want, nr.ID)
			}
		}
		for _, asc := range []bool{true, false} {
			var got []core.ID
			q := core.ListQuery{Type: core.RecordFeedback, Search: "needle", Limit: 7, Asc: asc}
			for {
				page, err := st.Records(ctx, ws.ID, q)
				if err != nil {
					t.Fatalf("%s: search: %v", step, err)
				}
				for _, r := range page {
					got = append(got, r.ID)
				}
				if len(page) < q.Limit {
					break
				}
				last := page[len(page)-1]
				q.After = &core.Cursor{CreatedAt: last.CreatedAt, ID: last.ID}
			}
			exp := want
			if !asc {
				exp = slices.Clone(want)
				slices.Reverse(exp)
			}
			if !slices.Equal(got, exp) {
				t.Fatalf("%s (asc=%v): search returned %d ids, want %d\n got %v\nwant %v", step, asc, len(got), len(exp), got, exp)
			}
		}
	}
	queued := func() int {
		var n int
		if err := st.w.QueryRowContext(ctx, `SELECT count(*) FROM records_fts_pending`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}

	for i := range 120 {
		if _, _, err := st.CreateRecord(ctx, ws.ID, record(i)); err != nil {
			t.Fatal(err)
		}
	}
	if queued() == 0 {
		t.Fatal("records written one at a time were indexed in their own transactions, not queued")
	}
	check("all queued")
	if err := st.FlushIndex(ctx); err != nil {
		t.Fatal(err)
	}
	if n := queued(); n != 0 {
		t.Fatalf("%d entries still queued after FlushIndex", n)
	}
	check("all indexed")
	var batch []core.NewRecord
	for i := 120; i < 180; i++ {
		batch = append(batch, record(i))
	}
	if _, err := st.CreateRecords(ctx, ws.ID, batch); err != nil {
		t.Fatal(err)
	}
	for i := 180; i < 260; i++ {
		if _, _, err := st.CreateRecord(ctx, ws.ID, record(i)); err != nil {
			t.Fatal(err)
		}
	}
	check("indexed, a bulk batch and queued")

	// Entries left queued at Close are drained by the next Open, and searches see no difference.
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	st = openT(t, path)
	deadline := time.Now().Add(10 * time.Second)
	for queued() > 0 {
		if time.Now().After(deadline) {
			t.Fatalf("%d entries still queued 10 s after reopening", queued())
		}
		time.Sleep(20 * time.Millisecond)
	}
	check("after reopening")
}
