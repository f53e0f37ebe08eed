package core

import (
	"context"
	"time"
)

// SeriesQuery asks how the named themes spread over time in whole UTC days: Buckets slices of Days days
// each, the first starting on day FromDay (days since the Unix epoch, as EpochDay counts them), and per
// theme the insights naming it of the records created in each slice.
type SeriesQuery struct {
	FromDay int64
	Days    int
	Buckets int
	Themes  []string
}

// MaxSeriesBuckets bounds the slices of a series (the bars of a small chart).
const MaxSeriesBuckets = 60

// Window is the first instant of the series' first day and the last millisecond of its last day.
func (q SeriesQuery) Window() (from, to time.Time) {
	from = DayStart(q.FromDay)
	return from, from.Add(time.Duration(q.Days*q.Buckets)*24*time.Hour - time.Millisecond)
}

// DayRange is the series' first and last epoch day, both within it.
func (q SeriesQuery) DayRange() (first, last int64) {
	return q.FromDay, q.FromDay + int64(q.Days)*int64(q.Buckets) - 1
}

// Bucket is the slice that instant t falls in (outside [0, Buckets) when t is outside the window).
func (q SeriesQuery) Bucket(t time.Time) int {
	d := EpochDay(t) - q.FromDay
	if d < 0 {
		return -1
	}
	return int(d / int64(q.Days))
}

// ThemeSeries counts, per theme of q and per slice of its window, the insights naming the theme (an
// insight counts once per theme, as in ThemeSignals, so a theme's slices add up to its Count over the
// same days). Every theme of q has a slice list, zeros where nothing named it.
func (s *Service) ThemeSeries(ctx context.Context, ws ID, q SeriesQuery) (map[string][]int, error) {
	out := make(map[string][]int, len(q.Themes))
	if len(q.Themes) == 0 || q.Buckets < 1 || q.Buckets > MaxSeriesBuckets || q.Days < 1 {
		return out, nil
	}
	got, err := s.store.ThemeSeries(ctx, ws, q)
	if err != nil {
		return nil, err
	}
	for _, t := range q.Themes {
		counts := make([]int, q.Buckets)
		for _, c := range got[t] {
			if c.Bucket >= 0 && c.Bucket < q.Buckets {
				counts[c.Bucket] += c.N
			}
		}
		out[t] = counts
	}
	return out, nil
}

// SeriesCount is one slice of one theme as a store aggregates it; slices without insights are absent.
type SeriesCount struct {
	Bucket, N int
}
