package core

import (
	"testing"
	"time"
)

func TestRetryDelay(t *testing.T) {
	low, high := func() float64 { return 0 }, func() float64 { return 0.999999 }
	cases := []struct {
		name       string
		attempts   int
		retryAfter time.Duration
		min, max   time.Duration
	}{
		{"first retry within a few seconds", 1, 0, time.Second, 2 * time.Second},
		{"doubles", 2, 0, 2 * time.Second, 4 * time.Second},
		{"keeps doubling", 5, 0, 16 * time.Second, 32 * time.Second},
		{"capped at an hour", 40, 0, 30 * time.Minute, time.Hour},
		{"Retry-After honoured", 3, 90 * time.Second, 90 * time.Second, 90 * time.Second},
		{"a long Retry-After too", 1, 3 * time.Hour, 3 * time.Hour, 3 * time.Hour},
		{"no attempt yet counts as the first", 0, 0, time.Second, 2 * time.Second},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			lo, hi := RetryDelay(c.attempts, c.retryAfter, low), RetryDelay(c.attempts, c.retryAfter, high)
			if lo < c.min || hi > c.max || lo > hi {
				t.Fatalf("delays %s..%s, want within %s..%s", lo, hi, c.min, c.max)
			}
		})
	}
	t.Run("jitter spreads the waits", func(t *testing.T) {
		seen := map[time.Duration]bool{}
		for range 50 {
			seen[RetryDelay(3, 0, nil)] = true
		}
		if len(seen) < 10 {
			t.Fatalf("only %d distinct delays in 50", len(seen))
		}
	})
}

func TestCheckQueueItem(t *testing.T) {
	good := QueueItem{ID: "e1", Queue: "events:s", Kind: "event", Workspace: "w"}
	if err := CheckQueueItem(good); err != nil {
		t.Fatalf("a good item: %v", err)
	}
	for _, c := range []struct {
		field string
		edit  func(*QueueItem)
	}{
		{"id", func(it *QueueItem) { it.ID = "" }},
		{"queue", func(it *QueueItem) { it.Queue = "" }},
		{"kind", func(it *QueueItem) { it.Kind = "" }},
		{"workspace", func(it *QueueItem) { it.Workspace = "" }},
		{"retry_for", func(it *QueueItem) { it.RetryFor = -1 }},
	} {
		t.Run(c.field, func(t *testing.T) {
			it := good
			c.edit(&it)
			ve, ok := CheckQueueItem(it).(*ValidationError)
			if !ok || ve.Field != c.field {
				t.Fatalf("got %v, want a validation error naming %s", ve, c.field)
			}
		})
	}
}
