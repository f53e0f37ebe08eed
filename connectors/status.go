package connectors

import (
	"context"
	"errors"
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
	svc     Service
	kind    string
	now     func() time.Time
	faults  func(kind, name string, err error)
	refused *prometheus.CounterVec // feedbridge_connector_refused_total; nil without a registry of its own
	mu      sync.Mutex
	rows    map[string]*boardRow
	list    []*boardRow
}

type boardRow struct {
	name      string
	workspace core.ID
	note
	counted prometheus.Counter // nil without metrics
	dirty   bool
}

// NewBoard makes a board for one kind's entries from the kind's env: env.Service may be nil (config
// check), and then Flush does nothing; env.Faults is told each fault (Fail) and env.Metrics counts each
// refusal in feedbridge_connector_refused_total, as an Entry's would be.
func NewBoard(env Env, kind string) (*Board, error) {
	env = env.WithDefaults()
	b := &Board{svc: env.Service, kind: kind, now: env.Now, faults: env.Faults, rows: map[string]*boardRow{}}
	km, err := kitMetricsOf(env)
	if err != nil {
		return nil, err
	}
	b.refused = km.refused
	return b, nil
}

// Add declares an entry.
func (b *Board) Add(name string, ws core.ID) {
	b.mu.Lock()
	defer b.mu.Unlock()
	r := &boardRow{name: name, workspace: ws, dirty: true, counted: b.refused.WithLabelValues(b.kind, name)}
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
	st := r.status(r.workspace, b.kind, r.name, state)
	b.mu.Unlock()
	if b.svc == nil {
		return nil
	}
	return b.svc.ReportConnector(ctx, st)
}

// Succeeded notes a success; it clears the last error, which no longer describes the entry.
func (b *Board) Succeeded(name string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if r := b.rows[name]; r != nil {
		r.lastSuccess, r.lastError, r.dirty = b.now(), "", true
	}
}

// Fail notes a fault of feedbridge or of the outside source (not a sender's bad input), as Entry.Fail
// does: its message is last_error, shown by GET /api/connectors, so it must hold no secret, SQL or file
// path, and err keeps its chain (a suspended workspace is core.ErrWorkspaceNotFound) for the board's
// fault hook.
func (b *Board) Fail(name string, err error) {
	if err == nil {
		return
	}
	b.mu.Lock()
	r := b.rows[name]
	if r != nil {
		r.lastError, r.dirty = err.Error(), true
	}
	b.mu.Unlock()
	if r != nil && b.faults != nil {
		b.faults(b.kind, name, err)
	}
}

// Refused notes a request refused because it failed authentication (a bad signature or token, an address
// over its failure budget), as Entry.Refused does for an item: GET /api/connectors shows the count and
// the last reason apart from last_error (a refusal is not a fault of the entry), and a success does not
// clear them: the operator should see that someone is knocking. Like every note they are written at the
// next Flush, so a flood of refusals costs one store write per flush, not one per request. reason is
// shown by GET /api/connectors: never a signature or secret.
func (b *Board) Refused(name, reason string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if r := b.rows[name]; r != nil {
		r.refuse(reason, b.now())
		r.dirty = true
		r.counted.Inc()
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
		dirty := r.dirty
		st := r.status(r.workspace, b.kind, r.name, state)
		r.dirty = false
		b.mu.Unlock()
		if !dirty && !all {
			continue
		}
		err := b.svc.ReportConnector(ctx, st)
		b.mu.Lock()
		if err != nil {
			r.dirty = true // written at the next flush
		} else {
			r.written(st)
		}
		b.mu.Unlock()
		if err != nil {
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

// Fault is an error whose message is msg, safe to show as last_error, and whose chain is cause's: a kind
// reports with it a fault whose cause may hold what GET /api/connectors must not show (SQL, a path), while
// errors.Is still finds core.ErrWorkspaceNotFound in it.
func Fault(msg string, cause error) error { return &fault{msg: msg, cause: cause} }

type fault struct {
	msg   string
	cause error
}

func (f *fault) Error() string { return f.msg }
func (f *fault) Unwrap() error { return f.cause }
