package sqlite

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/feedbridge/feedbridge/core"
)

// An event costs a create the writer's time while every other write waits, and each value its queue row
// binds is a conversion, a copy and an allocation there: the allocations a create's event adds (its body,
// its row's values) must stay within eventAllocs. Counted in a store without background work, so that
// the count is the create's own and the same on every run.
func TestEventAllocationsPerCreate(t *testing.T) {
	const eventAllocs = 22
	ctx := context.Background()
	st, err := OpenMode(ctx, filepath.Join(t.TempDir(), "allocs.db"), ModeCommand)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	svc := core.NewService(st, core.Options{})
	ws, err := svc.CreateWorkspace(ctx, "allocs", core.PlanBusiness, 0)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	create := func() {
		n++
		if _, err := svc.Submit(ctx, ws.ID, core.Submission{Type: core.RecordFeedback, Title: "Export is slow",
			Description:   "The CSV export times out after 30 seconds on large workspaces.",
			CustomerEmail: fmt.Sprintf("u%d@c%d.com", n%20, n%20)}); err != nil {
			t.Fatal(err)
		}
	}
	for range 40 { // warm-up: the contacts, companies and statements exist
		create()
	}
	without := testing.AllocsPerRun(200, create)
	svc.SetSubscribers([]core.Subscriber{{Name: "s", Workspace: ws.ID, Events: []string{core.EventRecordCreated}}})
	with := testing.AllocsPerRun(200, create)
	t.Logf("allocations per create: without an event %.1f, with %.1f", without, with)
	if with-without > eventAllocs {
		t.Errorf("a create's event adds %.1f allocations (%.1f with, %.1f without); want at most %d", with-without, with, without, eventAllocs)
	}
}
