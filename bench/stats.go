package main

import (
	"math"
	"slices"
	"time"
)

// Percentile returns the nearest-rank q-th quantile (0 < q ≤ 1) of sorted: the smallest value with at
// least q of the values at or below it. Nearest rank never invents a latency no request had, which an
// interpolated quantile would. It returns 0 for no values.
func Percentile(sorted []time.Duration, q float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	rank := int(math.Ceil(q*float64(len(sorted)))) - 1
	return sorted[min(max(rank, 0), len(sorted)-1)]
}

// Summary is the latency distribution of a set of requests.
type Summary struct {
	Count         int
	P50, P95, P99 time.Duration
	Max           time.Duration
	Mean          time.Duration
}

// Summarize sorts lat in place and summarizes it.
func Summarize(lat []time.Duration) Summary {
	if len(lat) == 0 {
		return Summary{}
	}
	slices.Sort(lat)
	var sum time.Duration
	for _, d := range lat {
		sum += d
	}
	return Summary{Count: len(lat), P50: Percentile(lat, 0.50), P95: Percentile(lat, 0.95),
		P99: Percentile(lat, 0.99), Max: lat[len(lat)-1], Mean: sum / time.Duration(len(lat))}
}

// ms is a duration in milliseconds, for tables.
func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
