package storetest

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/feedbridge/feedbridge/core"
)

var seriesTests = map[string]func(t *testing.T, f *fixture){
	// Each theme's slices hold what counting the insight rows by their record's slice in memory gives, and
	// add up to the theme's count from ThemeSignals over the same window; another workspace adds nothing.
	"ThemeSeriesMatchRows": func(t *testing.T, f *fixture) {
		a, b := f.workspace("A", 0).ID, f.workspace("B", 0).ID
		day := time.Date(2025, 5, 1, 0, 0, 0, 0, time.UTC)
		themes := []string{"export", "performance", "ui", "billing", "Billing", "é-theme"}
		created := map[core.ID]time.Time{}
		for i := range 40 {
			ws := a
			if i%7 == 6 {
				ws = b
			}
			at := day.Add(time.Duration(i)*17*time.Hour + time.Duration(i)*time.Millisecond)
			res := f.submit(ws, core.Submission{Type: core.RecordFeedback, Title: fmt.Sprintf("r%d", i), Description: "x", CreatedAt: at})
			created[res.Record.ID] = res.Record.CreatedAt
		}
		for n, j := range f.claim("w", 100, time.Minute) {
			ts := []string{themes[n%len(themes)], themes[(n*5+2)%len(themes)]}
			if n%4 == 0 {
				ts = append(ts, ts[0], "") // a repeat and a blank count nothing
			}
			ins := []core.Insight{{Kind: "request", Summary: "s", Quote: "q", Sentiment: "neutral", Themes: ts, Tags: []string{}, Extractor: "builtin"}}
			if n%3 == 0 {
				ins = append(ins, core.Insight{Kind: "problem", Summary: "t", Quote: "r", Sentiment: "neutral", Themes: ts[:1], Tags: []string{}, Extractor: "builtin"})
			}
			noErr(t, "complete", f.st.CompleteInsightJob(f.ctx, j, "w", ins))
		}
		asked := []string{"export", "ui", "Billing", "é-theme", "absent"}
		first := core.EpochDay(day)
		for _, c := range []struct {
			from          int64
			days, buckets int
		}{
			{first, 3, 10},
			{first + 3, 1, 7},
			{first - 1, 41, 1},
			{first + 20, 2, 15},
		} {
			q := core.SeriesQuery{FromDay: c.from, Days: c.days, Buckets: c.buckets, Themes: asked}
			from, to := q.Window()
			rows, err := f.st.InsightRows(f.ctx, a, from, to)
			noErr(t, "rows", err)
			want := map[string][]int{}
			for _, r := range rows {
				seen := map[string]bool{}
				for _, th := range r.Themes {
					if seen[th] || !slices.Contains(asked, th) {
						continue
					}
					seen[th] = true
					if want[th] == nil {
						want[th] = make([]int, c.buckets)
					}
					want[th][q.Bucket(created[r.RecordID])]++
				}
			}
			got, err := f.st.ThemeSeries(f.ctx, a, q)
			noErr(t, "theme series", err)
			dense := map[string][]int{}
			for th, cs := range got {
				dense[th] = make([]int, c.buckets)
				for _, x := range cs {
					if x.Bucket < 0 || x.Bucket >= c.buckets {
						t.Fatalf("slice %d out of %d", x.Bucket, c.buckets)
					}
					dense[th][x.Bucket] += x.N
				}
			}
			equal(t, fmt.Sprintf("series from day %d, %d × %d days", c.from, c.buckets, c.days), dense, want)
			if len(want) == 0 {
				t.Fatal("the case counts nothing")
			}
			sig, err := f.st.ThemeSignals(f.ctx, a, core.SignalQuery{From: from, To: to, PrevFrom: from, PrevTo: from, Limit: 100})
			noErr(t, "signals", err)
			for _, s := range sig {
				if d, ok := dense[s.Theme]; ok {
					sum := 0
					for _, n := range d {
						sum += n
					}
					equal(t, "slices of "+s.Theme+" add up to its count", sum, s.Count)
				}
			}
		}
	},
}

// themeListingTests: the listing's theme filter keeps exactly the records one of whose insights names the
// theme (exact spelling), of the workspace, in listing order across pages, with the other filters.
var themeListingTests = map[string]func(t *testing.T, f *fixture){
	"ListingByTheme": func(t *testing.T, f *fixture) {
		a, b := f.workspace("A", 0).ID, f.workspace("B", 0).ID
		for i := range 14 {
			ws := a
			if i%5 == 4 {
				ws = b
			}
			f.feedback(ws, fmt.Sprintf("r%d", i), "x")
		}
		themes := []string{"export", "Export", "ui"}
		named := map[core.ID][]string{}
		for n, j := range f.claim("w", 100, time.Minute) {
			ins := []core.Insight{{Kind: "request", Summary: "s", Quote: "q", Sentiment: "neutral", Themes: []string{themes[n%3]}, Tags: []string{}, Extractor: "builtin"}}
			if n%4 == 0 {
				ins = append(ins, core.Insight{Kind: "problem", Summary: "t", Quote: "r", Sentiment: "neutral", Themes: []string{"ui", "export"}, Tags: []string{}, Extractor: "builtin"})
			}
			noErr(t, "complete", f.st.CompleteInsightJob(f.ctx, j, "w", ins))
			for _, in := range ins {
				named[j.RecordID] = append(named[j.RecordID], in.Themes...)
			}
		}
		for _, theme := range []string{"export", "Export", "ui", "absent"} {
			all := f.pageAll(a, core.ListRequest{RecordType: "Feedback", Limit: "1000"})
			var want []core.ID
			for _, r := range all {
				if slices.Contains(named[r.ID], theme) {
					want = append(want, r.ID)
				}
			}
			var got []core.ID
			for _, r := range f.pageAll(a, core.ListRequest{RecordType: "Feedback", Theme: theme, Limit: "2"}) {
				got = append(got, r.ID)
			}
			equal(t, "records naming "+theme, got, want)
		}
		got := f.pageAll(b, core.ListRequest{RecordType: "Feedback", Theme: "export", Statuses: []string{"Triage"}})
		for _, r := range got {
			if !slices.Contains(named[r.ID], "export") {
				t.Fatalf("%s does not name the theme", r.ID)
			}
		}
	},
}
