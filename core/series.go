package core

import (
	"context"
	"time"
)

// SeriesQuery asks how the named themes spread over time: [From, To] (both inclusive) cut into Buckets
// slices of equal length, and per theme the insights naming it of the records created in each slice.
type SeriesQuery struct {
	From, To time.Time
	Buckets  int
	Themes   []string
}

// MaxSeriesBuckets bounds the slices of a series (the bars of a small chart).
const MaxSeriesBuckets = 60

// Bucket is the slice of [from, to] that instant t falls in, the arithmetic both stores use: whole
// milliseconds, the window's length including its last millisecond.
func (q SeriesQuery) Bucket(t time.Time) int {
	span := q.To.UnixMilli() - q.From.UnixMilli() + 1
	return int((t.UnixMilli() - q.From.UnixMilli()) * int64(q.Buckets) / span)
}

// BucketStart is the first instant of slice i.
func (q SeriesQuery) BucketStart(i int) time.Time {
	span := q.To.UnixMilli() - q.From.UnixMilli() + 1
	n := int64(q.Buckets)
	return time.UnixMilli(q.From.UnixMilli() + (int64(i)*span+n-1)/n).UTC()
}

// ThemeSeries counts, per theme of q and per slice of its window, the insights naming the theme (an
// insight counts once per theme, as in ThemeSignals, so a theme's slices add up to its Count over the
// same window). Every theme of q has a slice list, zeros where nothing named it.
func (s *Service) ThemeSeries(ctx context.Context, ws ID, q SeriesQuery) (map[string][]int, error) {
	out := make(map[string][]int, len(q.Themes))
	if len(q.Themes) == 0 || q.Buckets < 1 || q.Buckets > MaxSeriesBuckets || q.To.Before(q.From) {
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
