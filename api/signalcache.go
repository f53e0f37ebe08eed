package api

import (
	"sync"
	"time"
)

// signalCacheTTL is how long a signals answer is reused: trends over days do not change within seconds.
const (
	signalCacheTTL = 5 * time.Second
	signalCacheMax = 1000
)

// signalCache keeps recent signals answers per workspace and query, and lets concurrent requests for the
// same one share a single aggregation.
type signalCache struct {
	now func() time.Time

	mu       sync.Mutex
	entries  map[string]signalEntry
	inflight map[string]*signalCall
}

type signalEntry struct {
	out     []signalView
	expires time.Time
}

type signalCall struct {
	done chan struct{}
	out  []signalView
	err  error
}

func newSignalCache(now func() time.Time) *signalCache {
	return &signalCache{now: now, entries: map[string]signalEntry{}, inflight: map[string]*signalCall{}}
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
			if len(c.entries) >= signalCacheMax {
				for k, e := range c.entries {
					if !now.Before(e.expires) {
						delete(c.entries, k)
					}
				}
				if len(c.entries) >= signalCacheMax {
					clear(c.entries)
				}
			}
			c.entries[key] = signalEntry{out: call.out, expires: c.now().Add(signalCacheTTL)}
		}
		c.mu.Unlock()
		close(call.done)
	}()
	call.out, call.err = compute()
	return call.out, call.err
}
