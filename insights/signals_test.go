package insights

import (
	"reflect"
	"testing"
	"time"

	"github.com/feedbridge/feedbridge/core"
)

func row(rec, company, kind string, score float64, minute int, themes ...string) core.InsightRow {
	t0 := time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)
	return core.InsightRow{
		Insight: core.Insight{RecordID: core.ID(rec), Kind: kind, SentimentScore: score, Themes: themes,
			CreatedAt: t0.Add(time.Duration(minute) * time.Minute)},
		Customer: company, RecordCreatedAt: t0.Add(time.Duration(minute) * time.Minute),
	}
}

func kinds(req, prob, praise, ques int) map[string]int {
	return map[string]int{KindRequest: req, KindProblem: prob, KindPraise: praise, KindQuestion: ques}
}

func TestRollup(t *testing.T) {
	tests := []struct {
		name     string
		current  []core.InsightRow
		previous []core.InsightRow
		limit    int
		want     []Signal
	}{
		{"empty window", nil, []core.InsightRow{row("r1", "Acme", KindProblem, -1, 0, "export")}, 0, []Signal{}},
		{"counts, records, companies, average, kinds, examples",
			[]core.InsightRow{
				row("r1", "Acme", KindProblem, -0.5, 1, "csv export", "large file"),
				row("r1", "Acme", KindRequest, 0, 2, "csv export"), // same record twice: count 2, records 1
				row("r2", "Globex", KindProblem, -0.25, 5, "csv export"),
				row("r3", "", KindPraise, 0.6, 3, "csv export"),                     // no company
				row("r4", "Globex", KindProblem, -1, 4, "large file", "large file"), // repeated theme counts once
			},
			nil, 0,
			[]Signal{
				{Theme: "csv export", Count: 4, Records: 3, Companies: []string{"Acme", "Globex"}, CompaniesTotal: 2,
					SentimentAvg: -0.038, Kinds: kinds(1, 2, 1, 0), Trend: Trend{Previous: 0, Direction: TrendNew},
					Examples: []core.ID{"r2", "r3", "r1"}},
				{Theme: "large file", Count: 2, Records: 2, Companies: []string{"Acme", "Globex"}, CompaniesTotal: 2,
					SentimentAvg: -0.75, Kinds: kinds(0, 2, 0, 0), Trend: Trend{Previous: 0, Direction: TrendNew},
					Examples: []core.ID{"r4", "r1"}},
			}},
		{"trend against the previous window",
			[]core.InsightRow{
				row("a", "X", KindRequest, 0, 0, "sso"), row("b", "X", KindRequest, 0, 0, "sso"),
				row("c", "Y", KindRequest, 0, 0, "sso"), row("d", "Y", KindProblem, -1, 0, "sync"),
				row("e", "Y", KindQuestion, 0, 0, "api"), row("f", "Y", KindQuestion, 0, 0, "api"),
			},
			[]core.InsightRow{
				row("p1", "X", KindRequest, 0, 0, "sso"), row("p2", "X", KindRequest, 0, 0, "sso"),
				row("p3", "X", KindProblem, 0, 0, "sync"), row("p4", "X", KindProblem, 0, 0, "sync"),
				row("p5", "X", KindProblem, 0, 0, "sync"), row("p6", "X", KindProblem, 0, 0, "sync"),
				row("p7", "X", KindQuestion, 0, 0, "api"), row("p8", "X", KindQuestion, 0, 0, "api"),
				row("p9", "X", KindQuestion, 0, 0, "billing"), // only before: no signal
			}, 0,
			[]Signal{
				{Theme: "sso", Count: 3, Records: 3, Companies: []string{"X", "Y"}, CompaniesTotal: 2, SentimentAvg: 0,
					Kinds: kinds(3, 0, 0, 0), Trend: Trend{Previous: 2, Change: 0.5, Direction: TrendRising},
					Examples: []core.ID{"c", "b", "a"}},
				{Theme: "api", Count: 2, Records: 2, Companies: []string{"Y"}, CompaniesTotal: 1, SentimentAvg: 0,
					Kinds: kinds(0, 0, 0, 2), Trend: Trend{Previous: 2, Change: 0, Direction: TrendSteady},
					Examples: []core.ID{"f", "e"}},
				{Theme: "sync", Count: 1, Records: 1, Companies: []string{"Y"}, CompaniesTotal: 1, SentimentAvg: -1,
					Kinds: kinds(0, 1, 0, 0), Trend: Trend{Previous: 4, Change: -0.75, Direction: TrendFalling},
					Examples: []core.ID{"d"}},
			}},
		{"ties by records then theme, and the limit",
			[]core.InsightRow{
				row("r1", "", KindProblem, -1, 0, "zeta"), row("r1", "", KindProblem, -1, 0, "zeta"),
				row("r2", "", KindProblem, -1, 0, "beta"), row("r3", "", KindProblem, -1, 0, "beta"),
				row("r4", "", KindProblem, -1, 0, "alpha"), row("r5", "", KindProblem, -1, 0, "alpha"),
			},
			nil, 2,
			[]Signal{
				{Theme: "alpha", Count: 2, Records: 2, Companies: []string{}, CompaniesTotal: 0, SentimentAvg: -1, Kinds: kinds(0, 2, 0, 0),
					Trend: Trend{Direction: TrendNew}, Examples: []core.ID{"r5", "r4"}},
				{Theme: "beta", Count: 2, Records: 2, Companies: []string{}, CompaniesTotal: 0, SentimentAvg: -1, Kinds: kinds(0, 2, 0, 0),
					Trend: Trend{Direction: TrendNew}, Examples: []core.ID{"r3", "r2"}},
			}},
		{"examples capped, newest first; companies by frequency",
			[]core.InsightRow{
				row("r1", "Beta", KindPraise, 1, 1, "ui"), row("r2", "Alpha", KindPraise, 1, 2, "ui"),
				row("r3", "Beta", KindPraise, 1, 3, "ui"), row("r4", "Gamma", KindPraise, 1, 4, "ui"),
				row("r5", "Alpha", KindPraise, 1, 5, "ui"), row("r6", "Beta", KindPraise, 0.5, 0, "ui"),
			},
			nil, 0,
			[]Signal{
				{Theme: "ui", Count: 6, Records: 6, Companies: []string{"Beta", "Alpha", "Gamma"}, CompaniesTotal: 3, SentimentAvg: 0.917,
					Kinds: kinds(0, 0, 6, 0), Trend: Trend{Direction: TrendNew}, Examples: []core.ID{"r5", "r4", "r3"}},
			}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := Rollup(tc.current, tc.previous, tc.limit)
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Rollup:\n got %+v\nwant %+v", got, tc.want)
			}
		})
	}
}
