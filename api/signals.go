package api

import (
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/feedbridge/feedbridge/core"
	"github.com/feedbridge/feedbridge/insights"
)

// Signals defaults: a 30-day window ending now, the 20 most frequent themes. A window is at most
// maxSignalWindow long: the store aggregates every insight of it (and of the window before, for trends).
const (
	defaultSignalWindow = 30 * 24 * time.Hour
	maxSignalWindow     = 366 * 24 * time.Hour
	defaultSignalLimit  = 20
)

var signalParams = map[string]bool{"created_from": false, "created_to": false, "limit": false}

// signals rolls the window's insights up by theme, with the trend against the window of the same length
// just before it. The store aggregates; the answer is kept briefly per workspace and window, so that a
// dashboard polled by many clients costs one aggregation per few seconds.
func (h *handlers) signals(w http.ResponseWriter, r *http.Request) {
	from, to, limit, err := parseSignalsQuery(r.URL.RawQuery, h.now())
	if err != nil {
		writeError(w, r, err)
		return
	}
	ws := workspaceFrom(r.Context()).ID
	// The store counts whole UTC days; keyed on the window rounded out to them rather than the query string,
	// which differs with every second and with the spelling of the same instant.
	from, to = normalizeWindow(from, to)
	key := fmt.Sprintf("%s|%d|%d|%d", ws, from.UnixMilli(), to.UnixMilli(), limit)
	out, err := h.signalCache.do(key, func() ([]signalView, error) {
		length := to.Sub(from) + time.Millisecond // both bounds are inclusive
		themes, err := h.svc.ThemeSignals(r.Context(), ws, core.SignalQuery{
			From: from, To: to, PrevFrom: from.Add(-length), PrevTo: from.Add(-time.Millisecond), Limit: limit})
		if err != nil {
			return nil, err
		}
		out := make([]signalView, 0, len(themes))
		for _, t := range themes {
			out = append(out, newSignalView(insights.FromTheme(t)))
		}
		return out, nil
	})
	if err != nil {
		writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, out)
}

func parseSignalsQuery(raw string, now time.Time) (from, to time.Time, limit int, err error) {
	vals, err := parseQuery(raw, signalParams)
	if err != nil {
		return from, to, 0, err
	}
	to = now.UTC().Truncate(time.Millisecond)
	if v := vals.Get("created_to"); v != "" {
		if to, err = parseTimeBound("created_to", v, true); err != nil {
			return from, to, 0, err
		}
	}
	from = to.Add(-defaultSignalWindow)
	if v := vals.Get("created_from"); v != "" {
		if from, err = parseTimeBound("created_from", v, false); err != nil {
			return from, to, 0, err
		}
	}
	if from.After(to) {
		return from, to, 0, badRequest("invalid window", "created_from must not be after created_to.")
	}
	if to.Sub(from) > maxSignalWindow {
		return from, to, 0, badRequest("window too long", "The window from created_from to created_to may span at most %d days.", int(maxSignalWindow/(24*time.Hour)))
	}
	limit = defaultSignalLimit
	if v := vals.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > core.MaxPageSize {
			return from, to, 0, badRequest("invalid limit", "limit must be a whole number from 1 to %d.", core.MaxPageSize)
		}
		limit = n
	}
	return from, to, limit, nil
}

// parseTimeBound reads RFC 3339 with any offset or a YYYY-MM-DD date, which as an upper bound means the
// day's last millisecond — the same reading GET /records gives these parameters.
func parseTimeBound(name, v string, end bool) (time.Time, error) {
	if t, err := time.Parse(time.RFC3339Nano, v); err == nil {
		return t.UTC(), nil
	}
	if d, err := time.Parse(time.DateOnly, v); err == nil {
		if end {
			return d.Add(24*time.Hour - time.Millisecond), nil
		}
		return d, nil
	}
	return time.Time{}, badRequest("invalid "+name, "%s must be an RFC 3339 timestamp or a YYYY-MM-DD date.", name)
}

// signalView is the signal object of the API.
type signalView struct {
	Theme     string   `json:"theme"`
	Count     int      `json:"count"`
	Records   int      `json:"records"`
	Companies []string `json:"companies"`
	// CompaniesTotal counts every company of the signal; companies lists the first few.
	CompaniesTotal int            `json:"companies_total"`
	SentimentAvg   float64        `json:"sentiment_avg"`
	Kinds          map[string]int `json:"kinds"`
	Trend          trendView      `json:"trend"`
	Examples       []core.ID      `json:"examples"`
}

type trendView struct {
	Previous  int     `json:"previous"`
	Change    float64 `json:"change"`
	Direction string  `json:"direction"`
}

func newSignalView(s insights.Signal) signalView {
	v := signalView{
		Theme: s.Theme, Count: s.Count, Records: s.Records, Companies: nonNil(s.Companies), CompaniesTotal: s.CompaniesTotal, SentimentAvg: s.SentimentAvg,
		Kinds: s.Kinds, Trend: trendView{Previous: s.Trend.Previous, Change: s.Trend.Change, Direction: s.Trend.Direction},
		Examples: s.Examples,
	}
	if v.Kinds == nil {
		v.Kinds = map[string]int{}
	}
	if v.Examples == nil {
		v.Examples = []core.ID{}
	}
	return v
}
