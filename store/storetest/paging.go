package storetest

import (
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/feedbridge/feedbridge/core"
)

// pageAll follows the cursors of a listing to the end and returns every record in the order served.
func (f *fixture) pageAll(ws core.ID, req core.ListRequest) []core.Record {
	f.t.Helper()
	var out []core.Record
	for pages := 0; ; pages++ {
		if pages > 10_000 {
			f.t.Fatal("paging does not terminate")
		}
		p := f.list(ws, req)
		out = append(out, p.Records...)
		if p.Next == "" {
			return out
		}
		req.Cursor = p.Next
	}
}

// checkPaged fails the test unless served is strictly ordered, repeats nothing and holds every id of want.
func checkPaged(t *testing.T, served []core.Record, want []core.ID, asc bool) {
	t.Helper()
	seen := map[core.ID]bool{}
	for i, r := range served {
		if seen[r.ID] {
			t.Fatalf("record %s served twice", r.ID)
		}
		seen[r.ID] = true
		if i == 0 {
			continue
		}
		p := served[i-1]
		before := p.CreatedAt.Before(r.CreatedAt) || p.CreatedAt.Equal(r.CreatedAt) && p.ID < r.ID
		if before != asc {
			t.Fatalf("out of order at %d: %s %v then %s %v", i, p.ID, p.CreatedAt, r.ID, r.CreatedAt)
		}
	}
	for _, id := range want {
		if !seen[id] {
			t.Fatalf("record %s skipped", id)
		}
	}
}

var pagingTests = map[string]func(t *testing.T, f *fixture){
	"NeverRepeatsOrSkipsWhileInserting": func(t *testing.T, f *fixture) {
		ws := f.workspace("A", 0).ID
		base := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
		var subs []core.Submission
		for i := range 150 {
			// Three records share each instant, so ties are broken by id.
			created := base.Add(time.Duration(i/3) * time.Minute)
			title := fmt.Sprintf("seed %03d", i)
			if i%2 == 0 {
				title += " needle"
			}
			subs = append(subs, core.Submission{Type: core.RecordIdea, Title: title, CreatedAt: created})
		}
		res, err := f.svc.SubmitBatch(f.ctx, ws, subs)
		noErr(t, "seed", err)
		var all, needles []core.ID
		for i, r := range res {
			noErr(t, "seed item", r.Err)
			all = append(all, r.ID)
			if i%2 == 0 {
				needles = append(needles, r.ID)
			}
		}
		cases := []struct {
			name string
			req  core.ListRequest
			want []core.ID
		}{
			{"desc", core.ListRequest{Limit: "7"}, all},
			{"asc", core.ListRequest{Limit: "7", Sort: "asc"}, all},
			{"search desc", core.ListRequest{Limit: "4", Search: "NEEDLE"}, needles},
			{"search asc", core.ListRequest{Limit: "4", Search: "NEEDLE", Sort: "asc"}, needles},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				stop := make(chan struct{})
				var wg sync.WaitGroup
				wg.Add(1)
				go func() {
					// New records land before, inside and after the range being paged.
					defer wg.Done()
					for i := 0; i < 300; i++ {
						select {
						case <-stop:
							return
						default:
						}
						created := base.Add(time.Duration(i%60) * time.Minute).Add(time.Duration(i) * time.Millisecond)
						if i%3 == 0 {
							created = time.Time{}
						}
						_, err := f.svc.Submit(f.ctx, ws, core.Submission{Type: core.RecordIdea, Title: "concurrent needle", CreatedAt: created})
						if err != nil {
							t.Errorf("concurrent insert: %v", err)
							return
						}
						time.Sleep(time.Millisecond)
					}
				}()
				served := f.pageAll(ws, c.req)
				close(stop)
				wg.Wait()
				checkPaged(t, served, c.want, c.req.Sort == "asc")
			})
		}
	},
	"TiesInOneMillisecondFollowIDs": func(t *testing.T, f *fixture) {
		ws := f.workspace("A", 0).ID
		at := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
		var rs []core.NewRecord
		tie := make([]core.ID, 12)
		for i := range tie {
			tie[i] = core.NewIDAt(at)
		}
		slices.Sort(tie)
		slices.Reverse(tie) // stored in the opposite order of their ids
		for i, id := range tie {
			nr := newRecord(t, f, core.Submission{Type: core.RecordIdea, Title: fmt.Sprintf("tie needle %d", i), CreatedAt: at})
			nr.ID = id
			rs = append(rs, nr)
		}
		before := newRecord(t, f, core.Submission{Type: core.RecordIdea, Title: "before needle", CreatedAt: at.Add(-time.Millisecond)})
		after := newRecord(t, f, core.Submission{Type: core.RecordIdea, Title: "after needle", CreatedAt: at.Add(time.Millisecond)})
		rs = append(rs, after, before)
		_, err := f.st.CreateRecords(f.ctx, ws, rs)
		noErr(t, "create", err)
		asc := append(append([]core.ID{before.ID}, slices.Sorted(slices.Values(tie))...), after.ID)
		desc := slices.Clone(asc)
		slices.Reverse(desc)
		for _, search := range []string{"", "NEEDLE"} {
			for _, limit := range []string{"1", "5", "13"} {
				t.Run(fmt.Sprintf("search=%q limit=%s", search, limit), func(t *testing.T) {
					got := f.pageAll(ws, core.ListRequest{Search: search, Limit: limit, Sort: "asc"})
					equal(t, "asc", ids(got), asc)
					got = f.pageAll(ws, core.ListRequest{Search: search, Limit: limit})
					equal(t, "desc", ids(got), desc)
				})
			}
		}
	},
	"FarPastAndFutureDates": func(t *testing.T, f *fixture) {
		ws := f.workspace("A", 0).ID
		years := []int{2300, 1700, 2150, 1969, 2400, 1970, 2026}
		byTime := map[int]core.ID{}
		for _, y := range years {
			at := time.Date(y, 1, 1, 0, 0, 0, 0, time.UTC)
			byTime[y] = f.submit(ws, core.Submission{Type: core.RecordIdea, Title: fmt.Sprintf("needle %d", y), CreatedAt: at}).Record.ID
		}
		sorted := slices.Sorted(slices.Values(years))
		var asc []core.ID
		for _, y := range sorted {
			asc = append(asc, byTime[y])
		}
		desc := slices.Clone(asc)
		slices.Reverse(desc)
		for _, search := range []string{"", "needle"} {
			equal(t, "asc "+search, ids(f.pageAll(ws, core.ListRequest{Search: search, Limit: "2", Sort: "asc"})), asc)
			equal(t, "desc "+search, ids(f.pageAll(ws, core.ListRequest{Search: search, Limit: "2"})), desc)
		}
	},
}
