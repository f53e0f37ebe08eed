package connectors

import (
	"context"
	"errors"
	"slices"
	"sync"
	"time"

	"github.com/feedbridge/feedbridge/core"
)

// Board keeps each entry's last success and last error in memory and writes them for GET /api/connectors
// when Flush is called (periodically, and at start and stop): writing on every event would add a store
// write to each record for a figure nobody reads at that rate.
type Board struct {
	svc  Service
	kind string
	now  func() time.Time
	mu   sync.Mutex
	rows map[string]*boardRow
	list []*boardRow
}

type boardRow struct {
	name      string
	workspace core.ID
	note
	dirty bool
}

// NewBoard makes a board for one kind's entries; svc may be nil (config check), and then Flush does nothing.
func NewBoard(svc Service, kind string, now func() time.Time) *Board {
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
func (b *Board) Remove(ctx context.Context, name string, state State) error {
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
		State: string(state), LastSuccessAt: row.lastSuccess, LastError: row.shownError("requests")})
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
		r.refuse(reason, b.now())
		r.dirty = true
	}
}

// Flush writes the state of every entry that changed since the last flush (every entry when all is
// true); a store that is down only costs the returned error.
func (b *Board) Flush(ctx context.Context, state State, all bool) error {
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
		st := core.ConnectorStatus{Workspace: row.workspace, Name: row.name, Kind: b.kind, State: string(state),
			LastSuccessAt: row.lastSuccess, LastError: row.shownError("requests")}
		if err := b.svc.ReportConnector(ctx, st); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
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
