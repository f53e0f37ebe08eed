package insights

import (
	"math"
	"sort"
	"time"

	"github.com/feedbridge/feedbridge/core"
)

// MaxExamples is how many record ids a signal names as examples.
const MaxExamples = 3

// Signal is one theme across a workspace's insights of a window (GET /records/signals).
type Signal struct {
	Theme     string   `json:"theme"`
	Count     int      `json:"count"`     // insights naming the theme
	Records   int      `json:"records"`   // distinct records among them
	Companies []string `json:"companies"` // up to core.MaxSignalCompanies names, most insights first
	// CompaniesTotal is how many distinct company names there are in all.
	CompaniesTotal int            `json:"companies_total"`
	SentimentAvg   float64        `json:"sentiment_avg"` // mean sentiment score, three decimals
	Kinds          map[string]int `json:"kinds"`         // insights per kind, all four kinds present
	Trend          Trend          `json:"trend"`
	Examples       []core.ID      `json:"examples"` // up to MaxExamples distinct record ids, newest record first
}

// Trend compares a theme's count with the previous window of the same length.
type Trend struct {
	Previous  int     `json:"previous"`  // count in the previous window
	Change    float64 `json:"change"`    // (count − previous) / previous, three decimals; 0 when previous is 0
	Direction string  `json:"direction"` // new | rising | falling | steady
}

// Trend directions.
const (
	TrendNew     = "new"
	TrendRising  = "rising"
	TrendFalling = "falling"
	TrendSteady  = "steady"
)

type themeAcc struct {
	count     int
	scoreSum  float64
	records   map[core.ID]time.Time // record → its creation
	companies map[string]int
	kinds     map[string]int
}

// Rollup turns the insights of a window (current) into signals (the in-memory reference that the stores'
// roll-ups are checked against), most frequent first (ties: more records,
// then theme name), with trends against the insights of the previous window of the same length. A theme
// only in the previous window is no signal. limit ≤ 0 returns every theme.
func Rollup(current, previous []core.InsightRow, limit int) []Signal {
	acc := map[string]*themeAcc{}
	for _, row := range current {
		for _, theme := range distinctThemes(row.Themes) {
			a := acc[theme]
			if a == nil {
				a = &themeAcc{records: map[core.ID]time.Time{}, companies: map[string]int{}, kinds: map[string]int{}}
				acc[theme] = a
			}
			a.count++
			a.scoreSum += row.SentimentScore
			a.records[row.RecordID] = row.RecordCreatedAt
			if row.Customer != "" {
				a.companies[row.Customer]++
			}
			a.kinds[row.Kind]++
		}
	}
	prev := map[string]int{}
	for _, row := range previous {
		for _, theme := range distinctThemes(row.Themes) {
			prev[theme]++
		}
	}
	out := make([]Signal, 0, len(acc))
	for theme, a := range acc {
		companies, total := core.TopCompanies(a.companies)
		out = append(out, Signal{
			Theme:          theme,
			Count:          a.count,
			Records:        len(a.records),
			Companies:      companies,
			CompaniesTotal: total,
			SentimentAvg:   round3(a.scoreSum / float64(a.count)),
			Kinds:          kindCounts(a.kinds),
			Trend:          trend(a.count, prev[theme]),
			Examples:       newestRecords(a.records),
		})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Count != out[j].Count {
			return out[i].Count > out[j].Count
		}
		if out[i].Records != out[j].Records {
			return out[i].Records > out[j].Records
		}
		return out[i].Theme < out[j].Theme
	})
	if limit > 0 && len(out) > limit {
		out = out[:limit]
	}
	return out
}

// distinctThemes drops blanks and repeats, so an insight counts once per theme.
func distinctThemes(themes []string) []string {
	out := themes[:0:0]
	for _, t := range themes {
		if t != "" && !containsString(out, t) {
			out = append(out, t)
		}
	}
	return out
}

func trend(count, previous int) Trend {
	t := Trend{Previous: previous}
	switch {
	case previous == 0:
		t.Direction = TrendNew
		return t
	case count > previous:
		t.Direction = TrendRising
	case count < previous:
		t.Direction = TrendFalling
	default:
		t.Direction = TrendSteady
	}
	t.Change = round3(float64(count-previous) / float64(previous))
	return t
}

func kindCounts(k map[string]int) map[string]int {
	out := map[string]int{KindRequest: 0, KindProblem: 0, KindPraise: 0, KindQuestion: 0}
	for kind, n := range k {
		out[kind] += n
	}
	return out
}

func newestRecords(r map[core.ID]time.Time) []core.ID {
	ids := make([]core.ID, 0, len(r))
	for id := range r {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool {
		if !r[ids[i]].Equal(r[ids[j]]) {
			return r[ids[i]].After(r[ids[j]])
		}
		return ids[i] > ids[j]
	})
	if len(ids) > MaxExamples {
		ids = ids[:MaxExamples]
	}
	return ids
}

func round3(f float64) float64 { return math.Round(f*1000) / 1000 }

// FromTheme makes the signal of a theme the store has aggregated: the same object Rollup gives for the
// same insights.
func FromTheme(t core.ThemeSignal) Signal {
	s := Signal{
		Theme: t.Theme, Count: t.Count, Records: t.Records, Companies: t.Companies, CompaniesTotal: t.CompaniesTotal,
		Kinds: kindCounts(t.Kinds), Trend: trend(t.Count, t.Previous), Examples: t.Examples,
	}
	if t.Count > 0 {
		s.SentimentAvg = round3(t.ScoreSum / float64(t.Count))
	}
	return s
}
