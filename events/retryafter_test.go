package events

import (
	"testing"
	"time"
)

func TestRetryAfter(t *testing.T) {
	now := time.Date(2026, 11, 22, 9, 30, 0, 0, time.UTC)
	for _, c := range []struct {
		in   string
		want time.Duration
	}{
		{"", 0}, {"0", 0}, {"7", 7 * time.Second}, {"-3", 0}, {"soon", 0},
		{"Sun, 22 Nov 2026 09:31:00 GMT", time.Minute}, {"Sun, 22 Nov 2026 09:29:00 GMT", 0},
		{"999999999", maxRetryAfter},
	} {
		if got := retryAfter(c.in, now); got != c.want {
			t.Errorf("Retry-After %q: %v, want %v", c.in, got, c.want)
		}
	}
}

// A subscriber's Retry-After is outside input: whatever it says, the wait is between 0 and the bound.
func FuzzRetryAfter(f *testing.F) {
	for _, s := range []string{"", "7", "-1", "Sun, 22 Nov 2026 09:31:00 GMT", "9223372036854775807"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if d := retryAfter(s, time.Now()); d < 0 || d > maxRetryAfter {
			t.Fatalf("Retry-After %q gave %v", s, d)
		}
	})
}
