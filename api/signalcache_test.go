package api

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/feedbridge/feedbridge/core"
)

// countingStore is a real store that counts the aggregations it is asked for.
type countingStore struct {
	core.Store
	signals atomic.Int64
}

func (s *countingStore) ThemeSignals(ctx context.Context, ws core.ID, q core.SignalQuery) ([]core.ThemeSignal, error) {
	s.signals.Add(1)
	return s.Store.ThemeSignals(ctx, ws, q)
}

// TestSignalsCacheNormalizesTheWindow: windows a second apart, or one instant spelled with another offset,
// are one aggregation; another day or another limit is another. Before the fix every distinct query
// string was its own aggregation and its own cache entry.
func TestSignalsCacheNormalizesTheWindow(t *testing.T) {
	eachStore(t, func(t *testing.T, open opener) {
		cs := &countingStore{}
		e := newEnv(t, func(t testing.TB) core.Store { cs.Store = open(t); return cs }, envOpts{})
		steps := []struct {
			name, query string
			want        int64 // aggregations so far
		}{
			{"first", "created_from=2026-10-01T10:00:01Z&created_to=2026-11-01T10:00:01Z", 1},
			{"a second later", "created_from=2026-10-01T10:00:02Z&created_to=2026-11-01T10:00:02Z", 1},
			{"the same day, another offset and hour", "created_from=2026-10-01T12:00:30%2B02:00&created_to=2026-11-01T23:00:59%2B01:00", 1},
			{"another day", "created_from=2026-10-02T00:00:00Z&created_to=2026-11-01T10:00:02Z", 2},
			{"another limit", "created_from=2026-10-01T10:00:01Z&created_to=2026-11-01T10:00:01Z&limit=5", 3},
		}
		for _, s := range steps {
			e.get("/api/records/signals?"+s.query).want(t, 200)
			if got := cs.signals.Load(); got != s.want {
				t.Fatalf("%s: %d aggregations, want %d", s.name, got, s.want)
			}
		}
		// Another workspace never shares an answer.
		e.do(req{method: "GET", path: "/api/records/signals?" + steps[0].query, key: e.otherKey}).want(t, 200)
		if got := cs.signals.Load(); got != 4 {
			t.Fatalf("other workspace: %d aggregations, want 4", got)
		}
	})
}

func TestNormalizeWindow(t *testing.T) {
	from, to := normalizeWindow(time.Date(2026, 10, 1, 10, 0, 59, 999e6, time.UTC), time.Date(2026, 11, 1, 10, 0, 0, 0, time.UTC))
	if want := time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC); !from.Equal(want) {
		t.Errorf("from %v, want %v", from, want)
	}
	if want := time.Date(2026, 11, 1, 23, 59, 59, 999e6, time.UTC); !to.Equal(want) {
		t.Errorf("to %v, want %v", to, want)
	}
}

// TestSignalCacheBounded: however many distinct answers are kept, their estimated size stays within the
// budget. Before the fix the cache was bounded only by a count of entries of any size.
func TestSignalCacheBounded(t *testing.T) {
	now := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	c := newSignalCache(func() time.Time { return now })
	c.max = 64 << 10
	answer := make([]signalView, 50)
	for i := range answer {
		answer[i] = signalView{Theme: fmt.Sprintf("theme %d", i), Companies: []string{"Acme", "Globex"},
			Kinds: map[string]int{"request": 1}, Examples: make([]core.ID, 5)}
	}
	for i := range 500 {
		if _, err := c.do(fmt.Sprint("key", i), func() ([]signalView, error) { return answer, nil }); err != nil {
			t.Fatal(err)
		}
		if c.bytes > c.max {
			t.Fatalf("after %d answers: %d bytes kept, budget %d", i+1, c.bytes, c.max)
		}
	}
	sum := 0
	for k, e := range c.entries {
		sum += e.size
		if e.size != len(k)+answerSize(e.out) {
			t.Fatalf("entry %s size %d", k, e.size)
		}
	}
	if sum != c.bytes || len(c.entries) == 0 {
		t.Fatalf("%d entries of %d bytes, counted %d", len(c.entries), sum, c.bytes)
	}
	// The newest answer is the one kept.
	if _, ok := c.entries["key499"]; !ok {
		t.Fatal("the newest answer was evicted")
	}
}
