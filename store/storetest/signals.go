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
	// records, companies, kinds, sentiment, examples and trends, for any window and limit.
	"ThemeSignalsMatchRollup": func(t *testing.T, f *fixture) {
		a, b := f.workspace("A", 0).ID, f.workspace("B", 0).ID
		day := time.Date(2025, 5, 1, 0, 0, 0, 0, time.UTC)
		themes := []string{"export", "performance", "ui", "billing", "Billing", "é-theme", "search"}
		kinds := []string{"request", "problem", "praise", "question"}
		domains := []string{"acme.com", "globex.com", "gmail.com", "initech.com"}
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
			{day, day.Add(30 * 24 * time.Hour), 100},
			{day.Add(10 * 24 * time.Hour), day.Add(20*24*time.Hour - time.Millisecond), 3},
			{day.Add(5 * 24 * time.Hour), day.Add(5 * 24 * time.Hour), 1},
			{day.Add(-time.Hour), day.Add(-time.Millisecond), 5},
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
			for i := range got {
				g := insights.FromTheme(got[i])
				if g.Companies == nil {
					g.Companies = []string{}
				}
				w := want[i]
				if w.Companies == nil {
					w.Companies = []string{}
				}
				if !reflect.DeepEqual(g, w) {
					t.Errorf("%v–%v limit %d, signal %d:\n got %+v\nwant %+v", c.from, c.to, c.limit, i, g, w)
				}
			}
		}
	},
}
