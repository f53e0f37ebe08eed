package console

import (
	"sync"
	"time"
)

// Failed sign-ins are slowed, not locked out: after freeFailures failures under a key (a client address,
// or an address signed in as), each further attempt under it must come delay×2^(n-freeFailures) after
// the one before, waiting server-side for its turn, so that parallel guesses queue up instead of racing.
// A turn further away than maxWait is refused at once. A key forgets its failures after forgetAfter.
const (
	freeFailures = 3
	maxDelay     = 30 * time.Second
	maxWait      = 10 * time.Second
	forgetAfter  = 15 * time.Minute
	maxKeys      = 100_000
)

type throttle struct {
	mu    sync.Mutex
	delay time.Duration
	now   func() time.Time
	keys  map[string]*slot
}

type slot struct {
	fails int
	next  time.Time // the earliest time of the next attempt
	last  time.Time // the last failure
}

func newThrottle(delay time.Duration, now func() time.Time) *throttle {
	return &throttle{delay: delay, now: now, keys: map[string]*slot{}}
}

// reserve books the next attempt under every key and says how long to wait for it; ok=false means the
// wait would be too long and the attempt is refused without trying.
func (t *throttle) reserve(keys ...string) (wait time.Duration, ok bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	now := t.now()
	at := now
	for _, k := range keys {
		if sl := t.live(k, now); sl != nil && sl.next.After(at) {
			at = sl.next
		}
	}
	if at.Sub(now) > maxWait {
		return 0, false
	}
	for _, k := range keys {
		if sl := t.live(k, now); sl != nil && sl.fails >= freeFailures {
			d := t.delay << min(sl.fails-freeFailures, 16)
			sl.next = at.Add(min(d, maxDelay))
		}
	}
	return at.Sub(now), true
}

// live returns a key's slot unless it has none or has forgotten it.
func (t *throttle) live(k string, now time.Time) *slot {
	sl := t.keys[k]
	if sl != nil && now.Sub(sl.last) > forgetAfter {
		delete(t.keys, k)
		return nil
	}
	return sl
}

// failed counts a failure under every key.
func (t *throttle) failed(keys ...string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	now := t.now()
	if len(t.keys) >= maxKeys {
		for k := range t.keys {
			t.live(k, now)
		}
	}
	for _, k := range keys {
		sl := t.keys[k]
		if sl == nil {
			if len(t.keys) >= maxKeys {
				continue // under a flood of addresses, the client address key still slows each source
			}
			sl = &slot{}
			t.keys[k] = sl
		}
		sl.fails++
		sl.last = now
	}
}

// succeeded forgets the failures of a key (the address that just signed in).
func (t *throttle) succeeded(key string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.keys, key)
}
