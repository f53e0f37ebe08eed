package csvimport

import (
	"testing"
	"time"
)

// TestBatchSizeFollowsWriteTime: slow writes halve the batch down to minBatch, quick ones double it back to
// the configured size, and a batch that waited for the one before it is charged only for its own write.
func TestBatchSizeFollowsWriteTime(t *testing.T) {
	im := &importer{opts: Options{BatchSize: 1000}, size: 1000}
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	// write returns a batch written alone, for d.
	write := func(d time.Duration) *batch {
		b := &batch{start: at, end: at.Add(d)}
		at = b.end.Add(time.Millisecond)
		return b
	}
	steps := []struct {
		took time.Duration
		want int
	}{
		{300 * time.Millisecond, 500},
		{300 * time.Millisecond, 250},
		{150 * time.Millisecond, 125},
		{150 * time.Millisecond, 100},
		{150 * time.Millisecond, 100}, // never below minBatch
		{60 * time.Millisecond, 100},  // between a quarter of batchTime and batchTime: kept
		{10 * time.Millisecond, 200},
		{10 * time.Millisecond, 400},
		{10 * time.Millisecond, 800},
		{10 * time.Millisecond, 1000}, // never above the configured size
		{10 * time.Millisecond, 1000},
	}
	for i, s := range steps {
		im.fit(write(s.took))
		if im.size != s.want {
			t.Fatalf("step %d (write of %v): size %d, want %d", i, s.took, im.size, s.want)
		}
	}

	// Two batches in flight: the second was handed over with the first and waited 90 ms for it in the
	// store's queue, then took 20 ms itself (110 ms from its start: more than batchTime).
	first := &batch{start: at, end: at.Add(90 * time.Millisecond)}
	second := &batch{start: at, end: at.Add(110 * time.Millisecond)}
	im.fit(first)
	im.fit(second)
	if im.size != 1000 {
		t.Errorf("a quick batch queued behind another: size %d, want 1000 (charged for the other's write)", im.size)
	}

	// A configured size below minBatch is the floor itself; a batch that wrote nothing changes nothing.
	small := &importer{opts: Options{BatchSize: 3}, size: 3}
	small.fit(&batch{start: at, end: at.Add(time.Second)})
	small.fit(&batch{})
	if small.size != 3 {
		t.Errorf("BatchSize 3 after a slow write: size %d, want 3", small.size)
	}
}
