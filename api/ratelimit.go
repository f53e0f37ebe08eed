package api

import (
	"math"
	"sync"
	"time"
)

// limiter keeps one token bucket per API key. Buckets that have refilled completely are dropped on the
// next sweep: a full bucket is the same as no bucket.
type limiter struct {
	rate  float64 // tokens per second
	burst float64
	now   func() time.Time

	mu        sync.Mutex
	buckets   map[string]*bucket
	lastSweep time.Time
}

type bucket struct {
	tokens float64
	last   time.Time
}

// decision is one request's outcome: reset is the time until the bucket is full again, retry the time
// until the next token when refused.
type decision struct {
	allowed   bool
	limit     int
	remaining int
	reset     time.Duration
	retry     time.Duration
}

func newLimiter(rl RateLimit, now func() time.Time) *limiter {
	return &limiter{rate: rl.PerSecond, burst: float64(rl.Burst), now: now, buckets: map[string]*bucket{}}
}

// set changes the rate and burst in place (a configuration reload). Buckets keep their tokens, capped at
// the new burst, so a lower limit applies at once and a higher one fills up at the new rate.
func (l *limiter) set(rl RateLimit) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.rate, l.burst = rl.PerSecond, float64(rl.Burst)
	for _, b := range l.buckets {
		b.tokens = math.Min(b.tokens, l.burst)
	}
}

func (l *limiter) take(key string) decision { return l.decide(key, true) }

// peek tells whether take would allow key now, without spending a token.
func (l *limiter) peek(key string) decision { return l.decide(key, false) }

func (l *limiter) decide(key string, spend bool) decision {
	now := l.now()
	l.mu.Lock()
	defer l.mu.Unlock()
	l.sweep(now)
	b, ok := l.buckets[key]
	if !ok {
		if !spend {
			return decision{allowed: true, limit: int(l.burst), remaining: int(l.burst)}
		}
		b = &bucket{tokens: l.burst, last: now}
		l.buckets[key] = b
	}
	if el := now.Sub(b.last).Seconds(); el > 0 {
		b.tokens = math.Min(l.burst, b.tokens+el*l.rate)
		b.last = now
	}
	d := decision{limit: int(l.burst)}
	if b.tokens >= 1 {
		if spend {
			b.tokens--
		}
		d.allowed = true
	} else {
		d.retry = l.wait(1 - b.tokens)
	}
	d.remaining = int(math.Floor(b.tokens))
	d.reset = l.wait(l.burst - b.tokens)
	return d
}

func (l *limiter) wait(tokens float64) time.Duration {
	return time.Duration(tokens / l.rate * float64(time.Second))
}

// sweep forgets full buckets once a minute so the map holds only keys that were busy lately.
func (l *limiter) sweep(now time.Time) {
	if now.Sub(l.lastSweep) < time.Minute {
		return
	}
	l.lastSweep = now
	full := l.wait(l.burst)
	for k, b := range l.buckets {
		if now.Sub(b.last) >= full {
			delete(l.buckets, k)
		}
	}
}
