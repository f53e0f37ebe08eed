package storetest

import (
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/feedbridge/feedbridge/core"
	"github.com/feedbridge/feedbridge/insights"
)

var signalTests = map[string]func(t *testing.T, f *fixture){
	// The store's aggregation gives exactly what rolling the insight rows up in memory gives: counts,
	// records, companies, kinds, sentiment, examples and trends, for any window of whole days and limit.
	"ThemeSignalsMatchRollup": func(t *testing.T, f *fixture) {
		a, b := f.workspace("A", 0).ID, f.workspace("B", 0).ID
		day := time.Date(2025, 5, 1, 0, 0, 0, 0, time.UTC)
		themes := []string{"export", "performance", "ui", "billing", "Billing", "é-theme", "search"}
		kinds := []string{"request", "problem", "praise", "question"}
		domains := []string{"acme.com", "globex.com", "gmail.com", "initech.com", "hooli.com", "umbrella.com", "stark.com", "wayne.com"}
		for i := range 48 {
			ws := a
			if i%7 == 6 {
				ws = b
			}
			f.submit(ws, core.Submission{Type: core.RecordFeedback, Title: fmt.Sprintf("r%d", i), Description: "x",
				CustomerEmail: fmt.Sprintf("p%d@%s", i, domains[i%len(domains)]), CreatedAt: day.Add(time.Duration(i) * 13 * time.Hour)})
		}
		done := 0
		for _, j := range f.claim("w", 100, time.Minute) {
			var ins []core.Insight
			for k := range 1 + done%3 {
				n := done + k
				ts := []string{themes[n%len(themes)], themes[(n*3+1)%len(themes)]}
				if n%5 == 0 {
					ts = append(ts, ts[0], "") // a repeat and a blank count nothing
				}
				ins = append(ins, core.Insight{Kind: kinds[n%len(kinds)], Summary: "s", Quote: "q", Sentiment: "neutral",
					SentimentScore: float64(n%9-4) / 4, Themes: ts, Tags: []string{}, Extractor: "builtin"})
			}
			noErr(t, "complete", f.st.CompleteInsightJob(f.ctx, j, "w", ins))
			done++
		}
		for _, c := range []struct {
			from, to time.Time
			limit    int
		}{
			{day, day.Add(31*24*time.Hour - time.Millisecond), 100},
			{day.Add(10 * 24 * time.Hour), day.Add(20*24*time.Hour - time.Millisecond), 3},
			{day.Add(5 * 24 * time.Hour), day.Add(6*24*time.Hour - time.Millisecond), 1},
			{day.Add(-24 * time.Hour), day.Add(-time.Millisecond), 5},
			{day.Add(-60 * 24 * time.Hour), day.Add(60*24*time.Hour - time.Millisecond), 100}, // spans of every length
		} {
			length := c.to.Sub(c.from) + time.Millisecond
			pf, pt := c.from.Add(-length), c.from.Add(-time.Millisecond)
			cur, err := f.st.InsightRows(f.ctx, a, c.from, c.to)
			noErr(t, "rows", err)
			prev, err := f.st.InsightRows(f.ctx, a, pf, pt)
			noErr(t, "previous rows", err)
			want := insights.Rollup(cur, prev, c.limit)
			got, err := f.st.ThemeSignals(f.ctx, a, core.SignalQuery{From: c.from, To: c.to, PrevFrom: pf, PrevTo: pt, Limit: c.limit})
			noErr(t, "theme signals", err)
			if len(got) != len(want) {
				t.Fatalf("%v–%v limit %d: %d signals, want %d", c.from, c.to, c.limit, len(got), len(want))
			}
			sameSignals(t, fmt.Sprintf("%v–%v limit %d", c.from, c.to, c.limit), got, want)
		}
	},
	// The roll-up follows every write that changes what signals count: a record's company changing, a
	// merge, an erasure, a deletion, an import undone. After each, the store's answer is what a roll-up
	// from scratch of the insights then stored gives.
	"ThemeRollupFollowsEveryWrite": func(t *testing.T, f *fixture) {
		a := f.workspace("A", 0).ID
		day := time.Date(2025, 7, 1, 0, 0, 0, 0, time.UTC)
		themes := []string{"dark mode", "csv export", "single sign-on", "search", "billing"}
		var ids []core.ID
		for i := range 24 {
			ids = append(ids, f.submit(a, core.Submission{Type: core.RecordFeedback, Title: fmt.Sprintf("r%d", i), Description: "x",
				CustomerEmail: fmt.Sprintf("p%d@c%d.com", i, i%7), CreatedAt: day.Add(time.Duration(i) * 7 * time.Hour)}).Record.ID)
		}
		run, _ := f.importRun(a, 6, "undo-me")
		n := 0
		for _, j := range f.claim("w", 100, time.Minute) {
			ins := []core.Insight{}
			for k := range 1 + n%3 {
				ins = append(ins, core.Insight{Kind: []string{"request", "problem", "praise", "question"}[(n+k)%4], Summary: "s",
					Quote: "q " + janeName, Sentiment: "neutral", SentimentScore: float64((n+k)%5-2) / 2,
					Themes: []string{themes[(n+k)%len(themes)], themes[(n*2+k)%len(themes)]}, Tags: []string{}, Extractor: "builtin"})
			}
			noErr(t, "complete", f.st.CompleteInsightJob(f.ctx, j, "w", ins))
			n++
		}
		check := func(step string) {
			t.Helper()
			from, to := day.Add(-40*24*time.Hour), day.Add(12*24*time.Hour-time.Millisecond)
			length := to.Sub(from) + time.Millisecond
			pf, pt := from.Add(-length), from.Add(-time.Millisecond)
			cur, err := f.st.InsightRows(f.ctx, a, from, to)
			noErr(t, "rows", err)
			prev, err := f.st.InsightRows(f.ctx, a, pf, pt)
			noErr(t, "previous rows", err)
			got, err := f.st.ThemeSignals(f.ctx, a, core.SignalQuery{From: from, To: to, PrevFrom: pf, PrevTo: pt, Limit: 100})
			noErr(t, "theme signals", err)
			sameSignals(t, step, got, insights.Rollup(cur, prev, 100))
		}
		check("after extraction")
		if got, err := f.st.ThemeSignals(f.ctx, a, core.SignalQuery{From: day, To: day.Add(12*24*time.Hour - time.Millisecond),
			PrevFrom: day.Add(-12 * 24 * time.Hour), PrevTo: day.Add(-time.Millisecond), Limit: 1}); err != nil || len(got) != 1 ||
			len(got[0].Companies) != core.MaxSignalCompanies || got[0].CompaniesTotal <= core.MaxSignalCompanies {
			t.Fatalf("companies are capped with their total: %+v, %v", got, err)
		}
		f.update(a, ids[0], core.Patch{CustomerEmail: str("p0@c3.com")})
		f.update(a, ids[1], core.Patch{CustomerEmail: str("someone@gmail.com")})
		f.update(a, ids[2], core.Patch{CustomerEmail: str("new@brand-new.com")})
		check("after company changes")
		if _, err := f.svc.Merge(f.ctx, a, ids[3], ids[4]); err != nil {
			t.Fatalf("merge: %v", err)
		}
		check("after a merge")
		noErr(t, "delete", f.svc.Delete(f.ctx, a, ids[5]))
		noErr(t, "delete", f.svc.Delete(f.ctx, a, ids[4]))
		check("after deletions")
		f.forget(a, "p6@c6.com")
		check("after an erasure")
		if _, err := f.svc.UndoImport(f.ctx, run.ID); err != nil {
			t.Fatalf("undo: %v", err)
		}
		check("after an import undone")
		for _, id := range ids[6:] {
			noErr(t, "delete", f.svc.Delete(f.ctx, a, id))
		}
		for _, id := range ids[:3] {
			noErr(t, "delete", f.svc.Delete(f.ctx, a, id))
		}
		got, err := f.st.ThemeSignals(f.ctx, a, core.SignalQuery{From: day.Add(-400 * 24 * time.Hour), To: day.Add(400 * 24 * time.Hour),
			PrevFrom: day.Add(-800 * 24 * time.Hour), PrevTo: day.Add(-400 * 24 * time.Hour), Limit: 100})
		noErr(t, "theme signals", err)
		if len(got) != 0 {
			t.Fatalf("every record deleted, yet signals remain: %+v", got)
		}
	},
}

// sameSignals fails the test unless the store's signals are the in-memory roll-up's.
func sameSignals(t *testing.T, what string, got []core.ThemeSignal, want []insights.Signal) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d signals, want %d", what, len(got), len(want))
	}
	for i := range got {
		{
			{
				g := insights.FromTheme(got[i])
				if g.Companies == nil {
					g.Companies = []string{}
				}
				w := want[i]
				if w.Companies == nil {
					w.Companies = []string{}
				}
				if !reflect.DeepEqual(g, w) {
					t.Errorf("%s, signal %d:\n got %+v\nwant %+v", what, i, g, w)
				}
			}
		}
	}
}
