package console

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/feedbridge/feedbridge/core"
	"github.com/feedbridge/feedbridge/insights"
)

// signalWindow is one choice of the signals page: whole UTC days up to today, Buckets bars of Per days.
type signalWindow struct {
	Days    int // Buckets × PerDays
	Buckets int
	PerDays int
	Name    string // the choice as a person reads it
	Per     string // what one bar covers
}

var signalWindows = []signalWindow{{7, 7, 1, "7 days", "day"}, {30, 15, 2, "30 days", "2 days"},
	{91, 13, 7, "13 weeks", "week"}, {364, 13, 28, "52 weeks", "4 weeks"}}

// signalThemes is how many themes the page shows, as GET /api/records/signals does by default.
const signalThemes = 20

// shownCompanies is how many of a theme's companies are named; the rest are counted.
const shownCompanies = 5

// chart geometry, in SVG user units: bars of chartBar with chartGap between them, chartHeight tall.
const (
	chartBar    = 10
	chartGap    = 3
	chartHeight = 40
)

type bar struct {
	X, Y, H int
	N       int
	From    time.Time
}

type themeView struct {
	insights.Signal
	Bars   []bar
	Width  int
	Height int
	Alt    string // the chart's numbers as text
	// TopCompanies are the first shownCompanies of the theme's companies; MoreCompanies counts the rest.
	TopCompanies  []string
	MoreCompanies int
	Trend         string
	Inbox         string // the inbox filtered by the theme
	Mood          string
}

type signalsData struct {
	Window  signalWindow
	Windows []signalWindow
	From    time.Time
	To      time.Time
	Themes  []themeView
}

// signals shows the workspace's themes over a chosen window with the counts of GET /api/records/signals
// and a small bar chart of each over time, drawn on the server (no script) with its numbers as text.
func (s *Server) signals(w http.ResponseWriter, r *http.Request, m *core.Member) {
	win := signalWindows[1]
	if v := r.URL.Query().Get("window"); v != "" {
		found := false
		for _, c := range signalWindows {
			if fmt.Sprint(c.Days) == v {
				win, found = c, true
			}
		}
		if !found {
			s.fail(w, r, http.StatusBadRequest, "That window is not offered; choose one from the list.")
			return
		}
	}
	// Whole UTC days, today the last: the bars of the charts are whole days too.
	q := core.SeriesQuery{FromDay: core.EpochDay(s.now()) - int64(win.Days) + 1, Days: win.PerDays, Buckets: win.Buckets}
	from, to := q.Window()
	length := to.Sub(from) + time.Millisecond
	themes, err := s.svc.ThemeSignals(r.Context(), m.Workspace, core.SignalQuery{From: from, To: to,
		PrevFrom: from.Add(-length), PrevTo: from.Add(-time.Millisecond), Limit: signalThemes})
	if err != nil {
		s.internal(w, r, err)
		return
	}
	for _, t := range themes {
		q.Themes = append(q.Themes, t.Theme)
	}
	series, err := s.svc.ThemeSeries(r.Context(), m.Workspace, q)
	if err != nil {
		s.internal(w, r, err)
		return
	}
	d := signalsData{Window: win, Windows: signalWindows, From: from, To: to}
	for _, t := range themes {
		d.Themes = append(d.Themes, newThemeView(insights.FromTheme(t), series[t.Theme], q, win))
	}
	s.render(w, r, http.StatusOK, "signals", view{Title: "Signals", Nav: "signals", Member: m, Data: d})
}

func newThemeView(sig insights.Signal, counts []int, q core.SeriesQuery, win signalWindow) themeView {
	v := themeView{Signal: sig, Height: chartHeight, Width: len(counts)*(chartBar+chartGap) - chartGap,
		Inbox: "/inbox?" + url.Values{"theme": {sig.Theme}}.Encode()}
	v.TopCompanies = sig.Companies
	if len(v.TopCompanies) > shownCompanies {
		v.TopCompanies = v.TopCompanies[:shownCompanies]
	}
	// The signal lists only its first companies; CompaniesTotal counts them all.
	v.MoreCompanies = max(sig.CompaniesTotal, len(sig.Companies)) - len(v.TopCompanies)
	top := 1
	for _, n := range counts {
		top = max(top, n)
	}
	nums := make([]string, len(counts))
	for i, n := range counts {
		h := n * (chartHeight - 1) / top
		if n > 0 {
			h = max(h, 2) // a count is never drawn as nothing
		}
		from, _ := q.Window()
		v.Bars = append(v.Bars, bar{X: i * (chartBar + chartGap), Y: chartHeight - h, H: h, N: n,
			From: from.AddDate(0, 0, i*q.Days)})
		nums[i] = fmt.Sprint(n)
	}
	v.Alt = fmt.Sprintf("Insights naming %q per %s over the last %s, oldest first: %s.", sig.Theme, win.Per, win.Name,
		strings.Join(nums, ", "))
	switch sig.Trend.Direction {
	case insights.TrendNew:
		v.Trend = "new in this window"
	case insights.TrendSteady:
		v.Trend = fmt.Sprintf("steady (%d before)", sig.Trend.Previous)
	case insights.TrendRising:
		v.Trend = fmt.Sprintf("up %.0f%% (%d before)", sig.Trend.Change*100, sig.Trend.Previous)
	case insights.TrendFalling:
		v.Trend = fmt.Sprintf("down %.0f%% (%d before)", -sig.Trend.Change*100, sig.Trend.Previous)
	}
	switch {
	case sig.SentimentAvg >= 0.2:
		v.Mood = "positive"
	case sig.SentimentAvg <= -0.2:
		v.Mood = "negative"
	default:
		v.Mood = "neutral"
	}
	return v
}
