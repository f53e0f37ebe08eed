package connectors

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/feedbridge/feedbridge/core"
)

// Board keeps each entry's last success and last error in memory and writes them for GET /api/connectors
// when Flush is called (periodically, and at start and stop): writing on every event would add a store
// write to each record for a figure nobody reads at that rate.
type Board struct {
	svc  *core.Service
	kind string
	now  func() time.Time
	mu   sync.Mutex
	rows map[string]*boardRow
	list []*boardRow
}

type boardRow struct {
	name        string
	workspace   core.ID
	lastSuccess time.Time
	lastError   string
	refusals    int // requests refused for failed authentication since the board was made
	lastRefusal string
	refusedAt   time.Time
	dirty       bool
}

// NewBoard makes a board for one kind's entries; svc may be nil (config check), and then Flush does nothing.
func NewBoard(svc *core.Service, kind string, now func() time.Time) *Board {
	if now == nil {
		now = time.Now
	}
	return &Board{svc: svc, kind: kind, now: now, rows: map[string]*boardRow{}}
}

// Add declares an entry.
func (b *Board) Add(name string, ws core.ID) {
	b.mu.Lock()
	defer b.mu.Unlock()
	r := &boardRow{name: name, workspace: ws, dirty: true}
	b.rows[name] = r
	b.list = append(b.list, r)
}

// Remove writes the entry's last state (a stopped entry's) and forgets it; Flush no longer writes it.
func (b *Board) Remove(ctx context.Context, name, state string) error {
	b.mu.Lock()
	r := b.rows[name]
	if r == nil {
		b.mu.Unlock()
		return nil
	}
	delete(b.rows, name)
	b.list = slices.DeleteFunc(b.list, func(x *boardRow) bool { return x == r })
	row := *r
	b.mu.Unlock()
	if b.svc == nil {
		return nil
	}
	return b.svc.ReportConnector(ctx, core.ConnectorStatus{Workspace: row.workspace, Name: row.name, Kind: b.kind,
		State: state, LastSuccessAt: row.lastSuccess, LastError: row.lastError})
}

// Succeeded notes a success; it clears the last error, which no longer describes the entry.
func (b *Board) Succeeded(name string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if r := b.rows[name]; r != nil {
		r.lastSuccess, r.lastError, r.dirty = b.now(), "", true
	}
}

// Failed notes a fault of feedbridge or of the outside source (not a sender's bad input). msg is shown
// by GET /api/connectors: it must hold no secret, SQL or file path.
func (b *Board) Failed(name, msg string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if r := b.rows[name]; r != nil {
		r.lastError, r.dirty = msg, true
	}
}

// Refused notes a request refused because it failed authentication (a bad signature or token, an address
// over its failure budget). Refusals are counted and shown after the last error, and a success does not
// clear them: the operator should see that someone is knocking. Like every note they are written at the
// next Flush, so a flood of refusals costs one store write per flush, not one per request. reason is
// shown by GET /api/connectors: never a signature or secret.
func (b *Board) Refused(name, reason string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if r := b.rows[name]; r != nil {
		r.refusals++
		r.lastRefusal, r.refusedAt, r.dirty = reason, b.now(), true
	}
}

// shownError is the row's last_error: the last fault, then the refusals.
func (r boardRow) shownError() string {
	if r.refusals == 0 {
		return r.lastError
	}
	ref := fmt.Sprintf("%d requests refused, the last at %s: %s", r.refusals, r.refusedAt.UTC().Format(time.RFC3339), r.lastRefusal)
	if r.lastError == "" {
		return ref
	}
	return r.lastError + "; " + ref
}

// Flush writes the state of every entry that changed since the last flush (every entry when all is
// true); a store that is down only costs the returned error.
func (b *Board) Flush(ctx context.Context, state string, all bool) error {
	if b.svc == nil {
		return nil
	}
	var errs []error
	b.mu.Lock()
	list := slices.Clone(b.list) // Add and Remove may change it meanwhile
	b.mu.Unlock()
	for _, r := range list {
		b.mu.Lock()
		row := *r
		r.dirty = false
		b.mu.Unlock()
		if !row.dirty && !all {
			continue
		}
		st := core.ConnectorStatus{Workspace: row.workspace, Name: row.name, Kind: b.kind, State: state,
			LastSuccessAt: row.lastSuccess, LastError: row.shownError()}
		if err := b.svc.ReportConnector(ctx, st); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// CounterVec registers a counter on reg, or returns the one already registered under that name (a second
// Set of the same kind, a reload), so two instances of a connector can coexist. A nil reg keeps it private.
func CounterVec(reg prometheus.Registerer, opts prometheus.CounterOpts, labels ...string) (*prometheus.CounterVec, error) {
	c := prometheus.NewCounterVec(opts, labels)
	if reg == nil {
		return c, nil
	}
	if err := reg.Register(c); err != nil {
		var dup prometheus.AlreadyRegisteredError
		if !errors.As(err, &dup) {
			return nil, err
		}
		existing, ok := dup.ExistingCollector.(*prometheus.CounterVec)
		if !ok {
			return nil, err
		}
		return existing, nil
	}
	return c, nil
}

// Sleep waits for d or until ctx ends, whichever comes first, and reports whether the full time passed.
func Sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}
