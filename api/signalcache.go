package api

import (
	"sync"
	"time"
)

const (
	// signalCacheTTL is how long a signals answer is reused: trends over days do not change within seconds.
	signalCacheTTL = 5 * time.Second
	// signalCacheBytes bounds what the kept answers may hold (by an estimate of their size), so that many
	// distinct windows cannot grow the daemon's heap without limit; the oldest answers go first.
	signalCacheBytes = 8 << 20
	// signalGrain is what a signals window is rounded out to (its start down, its end up): the whole UTC
	// days the stores' roll-up counts, so that windows a few seconds apart, as dashboards computing "now
	// minus 30 days" send, are one window and one aggregation. Documented with GET /records/signals.
	signalGrain = 24 * time.Hour
)

// normalizeWindow rounds a window out to whole signalGrains: from to the start of its UTC day, to to the
// last millisecond of its day. The answer is computed for the rounded window, so whoever shares a cached
// answer gets exactly what their own request would have computed.
func normalizeWindow(from, to time.Time) (time.Time, time.Time) {
	from = from.UTC().Truncate(signalGrain)
	end := to.UTC().Truncate(signalGrain)
	return from, end.Add(signalGrain - time.Millisecond)
}

// signalCache keeps recent signals answers per workspace and query, and lets concurrent requests for the
// same one share a single aggregation.
type signalCache struct {
	now func() time.Time
	max int // bytes

	mu       sync.Mutex
	entries  map[string]signalEntry
	bytes    int
	inflight map[string]*signalCall
}

type signalEntry struct {
	out     []signalView
	size    int
	expires time.Time
}

type signalCall struct {
	done chan struct{}
	out  []signalView
	err  error
}

func newSignalCache(now func() time.Time) *signalCache {
	return &signalCache{now: now, max: signalCacheBytes, entries: map[string]signalEntry{}, inflight: map[string]*signalCall{}}
}

// do returns the cached answer for key, or waits for the aggregation already running for it, or runs
// compute. Errors are not kept.
func (c *signalCache) do(key string, compute func() ([]signalView, error)) ([]signalView, error) {
	c.mu.Lock()
	now := c.now()
	if e, ok := c.entries[key]; ok && now.Before(e.expires) {
		c.mu.Unlock()
		return e.out, nil
	}
	if call, ok := c.inflight[key]; ok {
		c.mu.Unlock()
		<-call.done
		return call.out, call.err
	}
	call := &signalCall{done: make(chan struct{})}
	c.inflight[key] = call
	c.mu.Unlock()

	defer func() {
		c.mu.Lock()
		delete(c.inflight, key)
		if call.err == nil {
			c.keep(key, call.out)
		}
		c.mu.Unlock()
		close(call.done)
	}()
	call.out, call.err = compute()
	return call.out, call.err
}

// keep stores out under key within the byte budget: expired answers go first, then the ones closest to
// expiring. An answer larger than the whole budget is not kept. Called with mu held.
func (c *signalCache) keep(key string, out []signalView) {
	size := len(key) + answerSize(out)
	if size > c.max {
		return
	}
	if old, ok := c.entries[key]; ok {
		c.bytes -= old.size
		delete(c.entries, key)
	}
	now := c.now()
	for k, e := range c.entries {
		if !now.Before(e.expires) {
			c.bytes -= e.size
			delete(c.entries, k)
		}
	}
	for c.bytes+size > c.max {
		var oldest string
		var at time.Time
		for k, e := range c.entries {
			if oldest == "" || e.expires.Before(at) {
				oldest, at = k, e.expires
			}
		}
		c.bytes -= c.entries[oldest].size
		delete(c.entries, oldest)
	}
	c.entries[key] = signalEntry{out: out, size: size, expires: now.Add(signalCacheTTL)}
	c.bytes += size
}

// answerSize estimates the heap an answer holds: the structs and slice headers, and the strings and map
// entries they point to. An estimate is enough for a budget; it errs on the large side.
func answerSize(out []signalView) int {
	const view, str, mapEntry, id = 200, 16, 48, 24
	n := 24 + len(out)*view
	for _, v := range out {
		n += len(v.Theme) + len(v.Kinds)*(mapEntry+str) + len(v.Examples)*id + len(v.Trend.Direction)
		for _, c := range v.Companies {
			n += str + len(c)
		}
		for k := range v.Kinds {
			n += len(k)
		}
	}
	return n
}
