package webhook

import (
	"context"
	"database/sql"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/feedbridge/feedbridge/core"
	"github.com/feedbridge/feedbridge/store/postgres"
	"github.com/feedbridge/feedbridge/store/postgres/pgtest"
	"github.com/feedbridge/feedbridge/store/sqlite"
)

// queuedEntry is plainEntry with every delivery of more than over items queued.
func queuedEntry(name string, over int) map[string]any {
	e := plainEntry(name)
	e["queue_over"] = over
	return e
}

func (r reply) delivery(t testing.TB) queued {
	t.Helper()
	var q queued
	if err := json.Unmarshal([]byte(r.body), &q); err != nil {
		t.Fatal(err)
	}
	if !q.Success || !q.Queued || !core.ValidID(string(q.DeliveryID)) {
		t.Fatalf("202 body %s", r.body)
	}
	return q
}

// kept lists the entry's deliveries still in the store.
func (h *harness) kept(entry string) []core.Delivery {
	h.t.Helper()
	ds, err := h.svc.Deliveries(h.ctx, h.ws, Kind+":"+entry)
	if err != nil {
		h.t.Fatal(err)
	}
	return ds
}

// settled waits until the entry keeps no delivery that is still to be written.
func (h *harness) settled(entry string) {
	h.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		pending := 0
		for _, d := range h.kept(entry) {
			if d.State != core.JobFailed {
				pending++
			}
		}
		if pending == 0 {
			return
		}
		if time.Now().After(deadline) {
			h.t.Fatalf("%d deliveries of %s still pending", pending, entry)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func titles(recs []core.Record) string {
	var out []string
	for _, r := range recs {
		out = append(out, r.Title)
	}
	return strings.Join(out, ", ")
}

// A delivery answered 202 is written once, even when a worker died after writing its records and before
// removing it, and when the sender sends it again. The entry maps no external id: items are known by their
// content.
func TestQueuedDeliveryIsWrittenOnce(t *testing.T) {
	h := newHarness(t)
	e := queuedEntry("crm", 1)
	delete(e["mapping"].(map[string]any), "external_id")
	h.start(e)
	body := []byte(`[{"id": "A-1", "title": "Export to Excel"}, {"id": "A-2", "title": "Dark mode"}, {"title": "No id here"}]`)

	q := h.post("crm", body, hexSig("s3cret", body)).want(t, 202).delivery(t)
	if q.Items != 3 || len(h.records()) != 0 {
		t.Fatalf("queued %d items, %d records before any worker ran", q.Items, len(h.records()))
	}
	single := []byte(`{"id": "A-9", "title": "One item is written at once"}`)
	h.post("crm", single, hexSig("s3cret", single)).want(t, 201, `"created":true`)

	// A worker claims the delivery, writes its records and dies before removing it.
	claimed, err := h.svc.ClaimDeliveries(h.ctx, Kind+":crm", "dead", 1, 50*time.Millisecond)
	if err != nil || len(claimed) != 1 || claimed[0].ID != q.DeliveryID {
		t.Fatalf("claim: %v %+v", err, claimed)
	}
	if err := h.set.writeQueued(h.ctx, h.set.table.Load().byName["crm"], claimed[0]); err != nil {
		t.Fatal(err)
	}
	h.post("crm", body, hexSig("s3cret", body)).want(t, 202) // the sender's retry
	time.Sleep(100 * time.Millisecond)                       // the dead worker's lease runs out

	h.run()
	h.settled("crm")
	recs := h.records()
	if len(recs) != 4 {
		t.Fatalf("%d records (%s), want 4", len(recs), titles(recs))
	}
	if n := len(h.kept("crm")); n != 0 {
		t.Fatalf("%d deliveries kept after writing", n)
	}
	h.shutdown() // the worker counts right after removing a delivery
	if got := testutil.ToFloat64(h.set.queue.outcomes.WithLabelValues("crm", "written")); got != 2 {
		t.Fatalf("written %v deliveries, want 2", got)
	}
	for _, r := range recs {
		if r.Title != "One item is written at once" && !r.CreatedAt.Equal(claimed[0].CreatedAt) {
			t.Errorf("%q dated %v, want the delivery's arrival %v", r.Title, r.CreatedAt, claimed[0].CreatedAt)
		}
	}
}

// A delivery answered 202 by a daemon that stopped before writing it is written after the restart.
func TestQueuedDeliverySurvivesRestart(t *testing.T) {
	stores := map[string]func(t *testing.T) func() core.Store{
		"sqlite": func(t *testing.T) func() core.Store {
			path := filepath.Join(t.TempDir(), "feedbridge.db")
			return func() core.Store {
				st, err := sqlite.Open(context.Background(), path)
				if err != nil {
					t.Fatal(err)
				}
				return st
			}
		},
		"postgres": func(t *testing.T) func() core.Store {
			url := pgtest.URL(t)
			return func() core.Store {
				st, err := postgres.Open(context.Background(), url)
				if err != nil {
					t.Fatal(err)
				}
				return st
			}
		},
	}
	for name, open := range stores {
		t.Run(name, func(t *testing.T) {
			h := newHarnessOn(t, open(t))
			e := queuedEntry("crm", 0)
			h.start(e)
			body := []byte(`{"id": "R-1", "title": "Written after a restart"}`)
			q := h.post("crm", body, hexSig("s3cret", body)).want(t, 202).delivery(t)

			h.restart(e)
			if kept := h.kept("crm"); len(kept) != 1 || kept[0].ID != q.DeliveryID || kept[0].State != core.JobQueued {
				t.Fatalf("after the restart the store keeps %+v", kept)
			}
			h.run()
			h.settled("crm")
			if recs := h.records(); len(recs) != 1 || recs[0].Title != "Written after a restart" {
				t.Fatalf("records %s", titles(recs))
			}
		})
	}
}

// A queued delivery that cannot be written is kept with its error, logged, counted and shown by the
// entry's status; nothing of it is written.
func TestQueuedDeliveryFailureIsKept(t *testing.T) {
	tests := map[string]struct {
		then   func(h *harness) map[string]any // what happens between the 202 and the worker; the entry to restart with
		stored string                          // in the delivery's last error
		shown  string                          // in the entry's status
	}{
		"workspace suspended": {func(h *harness) map[string]any {
			yes := true
			if _, err := h.svc.UpdateWorkspace(h.ctx, h.ws, core.WorkspaceUpdate{Suspended: &yes}); err != nil {
				h.t.Fatal(err)
			}
			return queuedEntry("crm", 0)
		}, "workspace not found", "the workspace is missing or suspended"},
		"mapping changed": {func(h *harness) map[string]any {
			e := queuedEntry("crm", 0)
			e["mapping"].(map[string]any)["external_id"] = "ticket.id"
			return e
		}, `missing field "external_id"`, `missing field "external_id"`},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			h := newHarness(t)
			h.start(queuedEntry("crm", 0))
			body := []byte(`{"id": "F-1", "title": "Kept when it fails"}`)
			q := h.post("crm", body, hexSig("s3cret", body)).want(t, 202).delivery(t)

			h.restart(tc.then(h)) // a new service: no cached workspace state
			h.run()
			h.settled("crm")
			kept := h.kept("crm")
			if len(kept) != 1 || kept[0].ID != q.DeliveryID || kept[0].State != core.JobFailed ||
				!strings.Contains(kept[0].LastError, tc.stored) || string(kept[0].Body) != string(body) {
				t.Fatalf("kept %+v", kept)
			}
			// The worker counts and logs right after storing the failure.
			h.shutdown()
			if got := testutil.ToFloat64(h.set.queue.outcomes.WithLabelValues("crm", "failed")); got != 1 {
				t.Fatalf("failed counter %v, want 1", got)
			}
			if !strings.Contains(h.logs.String(), "kept as failed") || !strings.Contains(h.logs.String(), string(q.DeliveryID)) {
				t.Fatalf("log lacks the failed delivery:\n%s", h.logs)
			}
			h.connect() // the stop wrote the entry's status
			sts, err := h.svc.Connectors(h.ctx, h.ws)
			if err != nil {
				t.Fatal(err)
			}
			if len(sts) != 1 || !strings.Contains(sts[0].LastError, tc.shown) || !strings.Contains(sts[0].LastError, string(q.DeliveryID)) {
				t.Fatalf("status %+v", sts)
			}
			if recs := h.records(); len(recs) != 0 {
				t.Fatalf("a failed delivery wrote %s", titles(recs))
			}
		})
	}
}

// A delivery whose write does not finish within queue_after (the database is locked by another process) is
// kept and answered 202, and written once the store is free.
func TestSlowWriteIsQueued(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "feedbridge.db")
	h := newHarnessOn(t, func() core.Store {
		st, err := sqlite.Open(context.Background(), path)
		if err != nil {
			t.Fatal(err)
		}
		return st
	})
	e := plainEntry("crm")
	e["queue_after"] = "50ms"
	h.start(e)
	h.run()

	other, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(5000)")
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	conn, err := other.Conn(h.ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(h.ctx, "BEGIN IMMEDIATE"); err != nil {
		t.Fatal(err)
	}
	body := []byte(`{"id": "S-1", "title": "Written late"}`)
	answered := make(chan reply, 1)
	go func() { answered <- h.post("crm", body, hexSig("s3cret", body)) }()
	time.Sleep(300 * time.Millisecond) // well past queue_after
	if _, err := conn.ExecContext(h.ctx, "COMMIT"); err != nil {
		t.Fatal(err)
	}
	(<-answered).want(t, 202).delivery(t)
	h.settled("crm")
	if recs := h.records(); len(recs) != 1 || recs[0].Title != "Written late" {
		t.Fatalf("records %s", titles(recs))
	}
}

// A delivery over queue_over is checked like one written at once: a bad signature, a missing mapped field
// or an invalid item is refused and nothing is kept.
func TestQueuedDeliveryCheckedFirst(t *testing.T) {
	h := newHarness(t)
	h.start(queuedEntry("crm", 0))
	for _, tc := range []struct {
		body     string
		secret   string
		status   int
		contains string
	}{
		{`{"id": "1", "title": "t"}`, "wrong", 401, "unauthorized"},
		{`{"id": "1", "email": "a@b.co"}`, "s3cret", 400, `missing field \"title\"`},
		{`[{"id": "1", "title": "ok"}, {"id": "2", "title": "t", "email": "nope"}]`, "s3cret", 400, "customer_email"},
	} {
		h.post("crm", []byte(tc.body), hexSig(tc.secret, []byte(tc.body))).want(t, tc.status, tc.contains)
	}
	if n := len(h.kept("crm")); n != 0 {
		t.Fatalf("%d refused deliveries kept", n)
	}
}
