package core

import (
	"context"
	"sync/atomic"
	"time"
)

// WriteClock learns when a store began a write on a caller's behalf, after any wait for the store's
// writer. A caller that sizes its writes by how long they hold the writer (the CSV importer) is then not
// charged for the writes it queued behind. A store that cannot tell leaves it unset.
type WriteClock struct{ began atomic.Int64 }

// Began is when the first write under the clock's context began, zero when no store said so.
func (c *WriteClock) Began() time.Time {
	if ns := c.began.Load(); ns != 0 {
		return time.Unix(0, ns)
	}
	return time.Time{}
}

type writeClockKey struct{}

// WithWriteClock returns ctx carrying c for the writes made under it.
func WithWriteClock(ctx context.Context, c *WriteClock) context.Context {
	return context.WithValue(ctx, writeClockKey{}, c)
}

// WriteBegins is called by a store as it starts a write under ctx. Only the first call counts: a batch
// written again (record by record, or after a retry) is charged from its first start.
func WriteBegins(ctx context.Context) {
	if c, ok := ctx.Value(writeClockKey{}).(*WriteClock); ok {
		c.began.CompareAndSwap(0, time.Now().UnixNano())
	}
}
