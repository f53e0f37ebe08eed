package sqlite

import (
	"cmp"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/feedbridge/feedbridge/core"
)

// TestWindowedOrderWalksCreation: a listing with a date window in the update or demand order walks the
// window in creation order in the page's direction, so that its sort keeps only the page (the plan sorts
// once, after a subquery that reads the listing index in order), and its pages, followed by their cursors,
// are the window's records in exactly the listing's order.
func TestWindowedOrderWalksCreation(t *testing.T) {
	ctx := t.Context()
	st, err := Open(ctx, filepath.Join(t.TempDir(), "window.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ws := core.Workspace{ID: core.NewID(), Name: "window", Plan: core.PlanBusiness, CreatedAt: time.Now()}
	if err := st.CreateWorkspace(ctx, ws); err != nil {
		t.Fatal(err)
	}
	other := core.Workspace{ID: core.NewID(), Name: "other", Plan: core.PlanBusiness, CreatedAt: time.Now()}
	if err := st.CreateWorkspace(ctx, other); err != nil {
		t.Fatal(err)
	}
	base := time.Now().Add(-time.Hour).Truncate(time.Millisecond)
	const n = 240
	type rec struct {
		id               core.ID
		typ              core.RecordType
		created, updated time.Time
	}
	var all []rec
	for _, w := range []core.ID{ws.ID, other.ID} {
		var batch []core.NewRecord
		for i := range n {
			at := base.Add(time.Duration(i) * time.Second)
			// Updates mostly in creation order, some out of it, and ties of the update time.
			up := at.Add(time.Duration((i*37)%11) * 3 * time.Second)
			typ := core.RecordFeedback
			if i%4 == 0 {
				typ = core.RecordIdea
			}
			r := core.NewRecord{ID: core.NewIDAt(at), Type: typ, Title: fmt.Sprintf("r%d", i), Status: core.StatusTriage,
				Source: "API", CreatedAt: at, UpdatedAt: up}
			r.SearchText = core.Fold(r.Title)
			batch = append(batch, r)
			if w == ws.ID {
				all = append(all, rec{r.ID, typ, at, up})
			}
		}
		if _, err := st.CreateRecords(ctx, w, batch); err != nil {
			t.Fatal(err)
		}
	}
	from, to := base.Add(40*time.Second), base.Add(200*time.Second)
	for _, order := range []string{core.OrderUpdated, core.OrderDemand} {
		for _, asc := range []bool{false, true} {
			typ := core.RecordFeedback
			if order == core.OrderDemand {
				typ = core.RecordIdea
			}
			name := fmt.Sprintf("%s, ascending %v", order, asc)
			q := core.ListQuery{Type: typ, Order: order, Asc: asc, From: from, To: to, Limit: 7}

			f := listFilter(ws.ID, q, drive{})
			text := queryPlan(t, st, f.keys(asc), append(f.args, q.Limit)...)
			if !strings.Contains(text, "CO-ROUTINE") || strings.Count(text, "TEMP B-TREE") != 1 ||
				!strings.Contains(text, "INDEX records_listing (workspace_id=? AND type=? AND created_at>? AND created_at<?)") {
				t.Errorf("%s: the window is not walked in creation order before the one sort: %s", name, text)
			}

			var want []core.ID
			var in []rec
			for _, r := range all {
				if r.typ == typ && !r.created.Before(from) && !r.created.After(to) {
					in = append(in, r)
				}
			}
			slices.SortFunc(in, func(a, b rec) int {
				c := 0
				if order == core.OrderUpdated {
					c = cmp.Or(a.updated.Compare(b.updated), strings.Compare(string(a.id), string(b.id)))
				} else {
					c = cmp.Or(a.created.Compare(b.created), strings.Compare(string(a.id), string(b.id))) // no votes: all at 0
				}
				if !asc {
					c = -c
				}
				return c
			})
			for _, r := range in {
				want = append(want, r.id)
			}
			var got []core.ID
			for page := 0; page < 100; page++ {
				recs, err := st.Records(ctx, ws.ID, q)
				if err != nil {
					t.Fatal(err)
				}
				for _, r := range recs {
					got = append(got, r.ID)
				}
				if len(recs) < q.Limit {
					break
				}
				last := recs[len(recs)-1]
				c := core.Cursor{CreatedAt: last.CreatedAt, ID: last.ID}
				if order == core.OrderUpdated {
					c.Key = last.UpdatedAt.UnixMilli()
				} else {
					c.Key = int64(last.FeedbackCount)
				}
				q.After = &c
			}
			if !slices.Equal(got, want) {
				t.Errorf("%s: pages gave %d records, want %d in the listing's order", name, len(got), len(want))
			}
		}
	}
}
