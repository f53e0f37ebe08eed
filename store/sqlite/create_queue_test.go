package sqlite

import (
	"database/sql"
	"encoding/json"
	"testing"
	"time"

	"github.com/feedbridge/feedbridge/core"
)

// A create queues its insight job and then one event per subscriber that asked for it, in one statement:
// the rows must be what the job's and enqueue's own inserts wrote, in the same seq order, with the
// event's id and body shared by its subscribers.
func TestCreateQueuesJobThenEvents(t *testing.T) {
	ctx := t.Context()
	st, svc, _, ws := openSubscribed(t, "create-queue.db")
	svc.SetSubscribers([]core.Subscriber{
		{Name: "a", Workspace: ws.ID, Events: []string{core.EventRecordCreated}},
		{Name: "b", Workspace: ws.ID, Events: []string{core.EventRecordUpdated}}, // not asked: no event
		{Name: "c", Workspace: ws.ID, Events: core.EventTypes, RetryFor: 90 * time.Minute},
	})
	res, err := svc.Submit(ctx, ws.ID, core.Submission{Type: core.RecordFeedback, Title: "Export is slow",
		Description: "The CSV export times out.", CustomerEmail: "u@c.com"})
	if err != nil {
		t.Fatal(err)
	}
	rows, err := st.w.QueryContext(ctx, `SELECT id, queue, kind, workspace_id, body, state, attempts, last_error,
		retry_for_ms, run_at, lease_until, leased_by, give_up_at, created_at, updated_at
		FROM queue_items WHERE order_key = ? ORDER BY seq`, res.Record.ID)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	type row struct {
		id, queue, kind, ws, state, lastErr, leasedBy string
		body                                          []byte
		attempts                                      int
		retryFor, runAt, giveUp, created, updated     int64
		lease                                         sql.NullInt64
	}
	var got []row
	for rows.Next() {
		var r row
		if err := rows.Scan(&r.id, &r.queue, &r.kind, &r.ws, &r.body, &r.state, &r.attempts, &r.lastErr, &r.retryFor,
			&r.runAt, &r.lease, &r.leasedBy, &r.giveUp, &r.created, &r.updated); err != nil {
			t.Fatal(err)
		}
		got = append(got, r)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	want := []struct {
		queue, kind string
		retryFor    time.Duration
	}{
		{core.InsightQueue, core.KindInsight, core.DefaultRetryFor},
		{core.EventQueue("a"), core.EventKind, core.DefaultRetryFor},
		{core.EventQueue("c"), core.EventKind, 90 * time.Minute},
	}
	if len(got) != len(want) {
		t.Fatalf("%d queue items for the record, want %d (the insight job, then the events of a and c)", len(got), len(want))
	}
	for i, w := range want {
		g := got[i]
		if g.queue != w.queue || g.kind != w.kind || g.ws != string(ws.ID) || g.state != core.JobQueued || g.attempts != 0 ||
			g.lastErr != "" || g.lease.Valid || g.leasedBy != "" || g.retryFor != w.retryFor.Milliseconds() ||
			g.giveUp != g.runAt+g.retryFor || g.created != g.runAt || g.updated != g.runAt {
			g.body = nil
			t.Errorf("item %d: %+v, want queue %s, kind %s, queued and due, retried for %s", i, g, w.queue, w.kind, w.retryFor)
		}
	}
	if got[1].id != got[2].id || string(got[1].body) != string(got[2].body) || got[0].id == got[1].id {
		t.Errorf("ids %s, %s, %s: the event's subscribers must share its id and body, the job an id of its own",
			got[0].id, got[1].id, got[2].id)
	}
	var ev struct {
		ID   core.ID `json:"id"`
		Type string  `json:"type"`
	}
	if err := json.Unmarshal(got[1].body, &ev); err != nil || ev.ID != core.ID(got[1].id) || ev.Type != core.EventRecordCreated {
		t.Errorf("event body %s (%v): want a record.created event with its item's id", got[1].body, err)
	}
}
