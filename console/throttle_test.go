package console

import (
	"testing"
	"time"
)

func TestThrottle(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	th := newThrottle(time.Second, func() time.Time { return now })
	fail := func(n int, keys ...string) {
		for range n {
			if _, ok := th.reserve(keys...); !ok {
				t.Fatal("refused while failing")
			}
			th.failed(keys...)
		}
	}
	fail(freeFailures, "ip:a", "email:x")
	tests := []struct {
		name string
		keys []string
		want time.Duration
	}{
		{"first attempt past the free ones books the next turn", []string{"ip:a", "email:x"}, 0},
		{"the next waits the delay", []string{"ip:a", "email:x"}, time.Second},
		{"another address from the same client waits too", []string{"ip:a", "email:y"}, 2 * time.Second},
		{"the same address from another client waits too", []string{"ip:b", "email:x"}, 2 * time.Second},
		{"an unrelated client and address does not wait", []string{"ip:c", "email:z"}, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			wait, ok := th.reserve(tc.keys...)
			if !ok || wait != tc.want {
				t.Fatalf("wait %v ok %v, want %v", wait, ok, tc.want)
			}
		})
	}
	fail(7, "ip:d") // with the clock still, the booked turns add up to 15s ahead, beyond maxWait
	if _, ok := th.reserve("ip:d"); ok {
		t.Fatal("a turn further away than maxWait was not refused")
	}
	now = now.Add(forgetAfter + time.Second)
	if wait, ok := th.reserve("ip:d"); !ok || wait != 0 {
		t.Fatalf("failures were not forgotten: %v %v", wait, ok)
	}
}
