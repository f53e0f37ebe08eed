package sqlite

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/feedbridge/feedbridge/core"
)

// An event costs a create the writer's time while every other write waits, and each value its queue row
// binds is a conversion, a copy and an allocation there: the allocations a create's event adds (its body,
// its row's values) must stay within eventAllocs. Counted in a store without background work, so that
// the count is the create's own and the same on every run.
func TestEventAllocationsPerCreate(t *testing.T) {
	const eventAllocs = 22
	if raceBuild {
		t.Skip("the race detector's instrumentation allocates on its own")
	}
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

// queueCreated's statement, which binds the values its rows share once, must write exactly the rows that
// binding every column of every row writes; and an event it does not describe (a time of its own) must
// be written as it is.
func TestCreatedQueueRowsAsBoundEach(t *testing.T) {
	ctx := t.Context()
	st, err := OpenMode(ctx, filepath.Join(t.TempDir(), "rows.db"), ModeCommand)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	at := time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)
	st.now = func() time.Time { return at }
	ws := core.NewID()
	events := func(key core.ID, own time.Time) []core.QueueItem {
		id := core.NewID()
		return []core.QueueItem{
			{ID: id, Queue: core.EventQueue("a"), Kind: core.EventKind, Workspace: ws, Key: string(key), Body: []byte(`{"a":1}`)},
			{ID: id, Queue: core.EventQueue("b"), Kind: core.EventKind, Workspace: ws, Key: string(key), Body: []byte(`{"a":1}`),
				RetryFor: 90 * time.Minute, CreatedAt: own},
		}
	}
	shared, each, own := core.NewID(), core.NewID(), core.NewID()
	err = st.write(ctx, "test", func(tx *wtx) error {
		w := st.newRecordWriter(tx, ws)
		if err := w.queueCreated(core.NewRecord{ID: shared, EnqueueInsight: true}, events(shared, time.Time{})); err != nil {
			return err
		}
		if err := w.queueCreatedEach(core.NewRecord{ID: each, EnqueueInsight: true}, events(each, time.Time{})); err != nil {
			return err
		}
		return w.queueCreated(core.NewRecord{ID: own}, events(own, at.Add(-time.Hour)))
	})
	if err != nil {
		t.Fatal(err)
	}
	rows := func(key core.ID) []string {
		t.Helper()
		rs, err := st.w.QueryContext(ctx, `SELECT queue, kind, workspace_id, hex(body), typeof(body), state, attempts, last_error,
			retry_for_ms, run_at, ifnull(lease_until, -1), leased_by, give_up_at, created_at, updated_at
			FROM queue_items WHERE order_key = ? ORDER BY seq`, key)
		if err != nil {
			t.Fatal(err)
		}
		defer rs.Close()
		var out []string
		for rs.Next() {
			var c [15]string
			if err := rs.Scan(&c[0], &c[1], &c[2], &c[3], &c[4], &c[5], &c[6], &c[7], &c[8], &c[9], &c[10], &c[11], &c[12], &c[13], &c[14]); err != nil {
				t.Fatal(err)
			}
			out = append(out, fmt.Sprint(c))
		}
		return out
	}
	got, want := rows(shared), rows(each)
	if len(want) != 3 || fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("rows of the shared statement:\n%s\nbound each:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if o := rows(own); len(o) != 2 || !strings.HasSuffix(o[1], fmt.Sprint(at.Add(-time.Hour).UnixMilli(), " ", at.UnixMilli(), "]")) {
		t.Errorf("rows of events with a time of their own, no job:\n%s", strings.Join(o, "\n"))
	}
}
