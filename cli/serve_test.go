package cli

import (
	"runtime/debug"
	"testing"
)

// TestSetGCPercent: serve sets the collector's target only when GOGC leaves it to the daemon.
func TestSetGCPercent(t *testing.T) {
	orig := debug.SetGCPercent(100)
	t.Cleanup(func() { debug.SetGCPercent(orig) })
	for _, tc := range []struct {
		gogc string
		want int
	}{{"", daemonGCPercent}, {"100", 100}, {"off", 100}} {
		t.Setenv("GOGC", tc.gogc)
		debug.SetGCPercent(100)
		setGCPercent()
		if got := debug.SetGCPercent(100); got != tc.want {
			t.Errorf("GOGC=%q: GC percent %d, want %d", tc.gogc, got, tc.want)
		}
	}
}
