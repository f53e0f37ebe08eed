// Package storetest is the conformance suite of core.Store: every backend runs Run and must pass all of it.
// It drives records through core.Service where that is how the daemon writes them, and calls the store
// directly for everything else, always against a real, fresh store.
package storetest

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/feedbridge/feedbridge/core"
)

// Run runs every conformance test. open returns a fresh, empty, migrated store for one test and arranges
// for it to be closed when the test ends (closing twice must be harmless).
func Run(t *testing.T, open func(t *testing.T) core.Store) {
	groups := []struct {
		name  string
		tests map[string]func(t *testing.T, f *fixture)
	}{
		{"Workspaces", workspaceTests},
		{"Lookups", lookupTests},
		{"Records", recordTests},
		{"Idempotency", idempotencyTests},
		{"IdeaLimit", ideaLimitTests},
		{"Listing", listingTests},
		{"Planning", planningTests},
		{"Search", searchTests},
		{"Paging", pagingTests},
		{"Bulk", bulkTests},
		{"Connectors", connectorTests},
		{"FailedRows", failedRowTests},
		{"ConnectorCounts", connectorCountTests},
		{"InsightQueue", insightTests},
		{"InsightsOf", insightsOfTests},
		{"Deliveries", deliveryTests},
		{"Queue", queueTests},
		{"QueueOrder", queueOrderTests},
		{"QueueUsers", queueUserTests},
		{"Outbox", outboxTests},
		{"OutboxMoves", outboxMoveTests},
		{"OutboxUndo", outboxUndoTests},
		{"Notify", notifyTests},
		{"Signals", signalTests},
		{"Series", seriesTests},
		{"ThemeListing", themeListingTests},
		{"Leases", leaseTests},
		{"Members", memberTests},
		{"Backend", backendTests},
		{"Races", raceTests}, // races_extra.go and text_extra.go: cases found while building the PostgreSQL store
		{"Text", textTests},
		{"Edits", editTests},
		{"StatusMoves", statusTests},
		{"Links", linkTests},
		{"Merges", mergeTests},
		{"MoveListing", moveListTests},
		{"Erasure", erasureTests},
		{"ErasureScale", erasureScaleTests},
		{"Companies", companyTests},
		{"Undo", undoTests},
	}
	for _, g := range groups {
		t.Run(g.name, func(t *testing.T) {
			for _, name := range sortedKeys(g.tests) {
				fn := g.tests[name]
				t.Run(name, func(t *testing.T) {
					fn(t, newFixture(t, open(t)))
				})
			}
		})
	}
}

// fixture is one test's store, a service over it with a clock the test can move, and helpers that fail
// the test on unexpected errors.
type fixture struct {
	t     *testing.T
	ctx   context.Context
	st    core.Store
	svc   *core.Service
	clock *clock
}

func newFixture(t *testing.T, st core.Store) *fixture {
	c := &clock{now: time.Now().UTC().Truncate(time.Millisecond)}
	return &fixture{t: t, ctx: t.Context(), st: st, svc: core.NewService(st, core.Options{Now: c.Now}), clock: c}
}

// clock is the service's time: it starts at the real time and moves only when a test advances it.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// workspace creates a pro workspace (the API needs pro or business) with the given idea limit.
func (f *fixture) workspace(name string, ideaLimit int) core.Workspace {
	f.t.Helper()
	w, err := f.svc.CreateWorkspace(f.ctx, name, core.PlanPro, ideaLimit)
	if err != nil {
		f.t.Fatalf("create workspace %s: %v", name, err)
	}
	return w
}

// submit creates a record through the service and fails the test on any error.
func (f *fixture) submit(ws core.ID, sub core.Submission) core.Result {
	f.t.Helper()
	res, err := f.svc.Submit(f.ctx, ws, sub)
	if err != nil {
		f.t.Fatalf("submit %q: %v", sub.Title, err)
	}
	return res
}

// feedback submits a feedback with a title and description.
func (f *fixture) feedback(ws core.ID, title, desc string) core.Record {
	f.t.Helper()
	return f.submit(ws, core.Submission{Type: core.RecordFeedback, Title: title, Description: desc}).Record
}

// lookups adds labels of kind and returns their ids in order.
func (f *fixture) lookups(ws core.ID, kind core.LookupKind, labels ...string) []core.ID {
	f.t.Helper()
	ls, err := f.st.PutLookups(f.ctx, ws, kind, labels)
	if err != nil {
		f.t.Fatalf("put %s lookups: %v", kind, err)
	}
	ids := make([]core.ID, len(ls))
	for i, l := range ls {
		ids[i] = l.ID
	}
	return ids
}

// user adds a workspace member.
func (f *fixture) user(ws core.ID, name string) core.ID {
	f.t.Helper()
	u, err := f.svc.AddUser(f.ctx, ws, name, "")
	if err != nil {
		f.t.Fatalf("add user %s: %v", name, err)
	}
	return u.ID
}

// list runs a listing through the service and fails the test on an error.
func (f *fixture) list(ws core.ID, req core.ListRequest) core.Page {
	f.t.Helper()
	p, err := f.svc.List(f.ctx, ws, req)
	if err != nil {
		f.t.Fatalf("list %+v: %v", req, err)
	}
	return p
}

// records queries the store directly for up to 1000 records of type t (all filters zero).
func (f *fixture) records(ws core.ID, t core.RecordType) []core.Record {
	f.t.Helper()
	recs, err := f.st.Records(f.ctx, ws, core.ListQuery{Type: t, Limit: 1000})
	if err != nil {
		f.t.Fatalf("records: %v", err)
	}
	return recs
}
