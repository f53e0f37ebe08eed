package sqlite

import (
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/feedbridge/feedbridge/core"
)

// TestEventsQueuedInOrder writes events in separate commits, interleaved between keys, then claims them
// all: the counts include every event as soon as its commit is done, every event is handed out exactly
// once, those of a key in the order they were written, each due and giving up as counted from when it
// was written. A repeated event is dropped.
func TestEventsQueuedInOrder(t *testing.T) {
	ctx := t.Context()
	st, err := OpenMode(ctx, filepath.Join(t.TempDir(), "events.db"), ModeCommand)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	at := time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)
	st.now = func() time.Time { return at }
	ws, q := core.NewID(), core.EventQueue("s")
	const n, keys = 437, 7
	var written []core.QueueItem
	for i := 0; i < n; {
		var batch []core.QueueItem
		for ; i < n && len(batch) < 150; i++ {
			batch = append(batch, core.QueueItem{ID: core.NewID(), Queue: q, Kind: core.EventKind, Workspace: ws,
				Key: fmt.Sprintf("k%d", i%keys), Body: []byte(fmt.Sprint(i)), RetryFor: time.Hour})
		}
		if err := st.EnqueueItems(ctx, batch); err != nil {
			t.Fatal(err)
		}
		written = append(written, batch...)
	}
	if err := st.EnqueueItems(ctx, written[:1]); err != nil { // again: the repeat must not be delivered twice
		t.Fatal(err)
	}
	if qs, err := st.PendingQueues(ctx, core.EventKind, ws); err != nil || len(qs) != 1 || qs[0] != q {
		t.Fatalf("pending queues before any claim: %q, %v", qs, err)
	}
	if stats, err := st.QueueStats(ctx, q); err != nil || stats.Pending != n {
		t.Fatalf("stats before any claim: %+v, %v; want %d pending", stats, err, n)
	}

	st.now = func() time.Time { return at.Add(time.Minute) }
	claimAllInOrder(t, st, q, written, at)
	if stats, err := st.QueueStats(ctx, q); err != nil || stats != (core.QueueStats{}) {
		t.Fatalf("stats after the claims: %+v, %v", stats, err)
	}
}

// claimAllInOrder claims and finishes everything on q, checking that each of written is handed out once,
// those of a key in written order, with its body and with due and give-up times counted from at.
func claimAllInOrder(t *testing.T, st *Store, q string, written []core.QueueItem, at time.Time) {
	t.Helper()
	ctx := t.Context()
	next := map[string]int{} // key → index of the next event of the key in written order
	order := map[core.ID]int{}
	for i, it := range written {
		order[it.ID] = i
	}
	seen := 0
	for {
		its, err := st.ClaimItems(ctx, q, "w", 50, time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		if len(its) == 0 {
			break
		}
		for _, it := range its {
			i, ok := order[it.ID]
			if !ok {
				t.Fatalf("claimed %s, which was not written", it.ID)
			}
			if i < next[it.Key] {
				t.Fatalf("event %d of %s handed out after a later one of its key", i, it.Key)
			}
			next[it.Key] = i + 1
			if !it.RunAt.Equal(at) || !it.GiveUpAt.Equal(at.Add(time.Hour)) || string(it.Body) != string(written[i].Body) {
				t.Fatalf("event %d: run_at %v, give_up_at %v, body %q; want written at %v", i, it.RunAt, it.GiveUpAt, it.Body, at)
			}
			if err := st.FinishItem(ctx, it, "w"); err != nil {
				t.Fatal(err)
			}
			seen++
		}
	}
	if seen != len(written) {
		t.Fatalf("claimed %d events, want %d", seen, len(written))
	}
}

// TestEventOutboxMigration builds a database at schema version 28, whose changes wrote their events into an
// outbox, with events still there (one of them also on the queue already), then opens it: the events must be
// on the queue, in the order they were written and timed from when they were written, the repeat once, and
// the outbox gone.
func TestEventOutboxMigration(t *testing.T) {
	path := filepath.Join(t.TempDir(), "old.db")
	db, exec := oldDatabase(t, path, 28)
	ws, q := core.NewID(), core.EventQueue("s")
	at := time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)
	var written []core.QueueItem
	for i := range 9 {
		it := core.QueueItem{ID: core.NewID(), Queue: q, Kind: core.EventKind, Workspace: ws,
			Key: fmt.Sprintf("k%d", i%2), Body: []byte(fmt.Sprint(i))}
		written = append(written, it)
		exec(`INSERT INTO queue_outbox (id, queue, kind, workspace_id, order_key, body, retry_for_ms, created_at, enqueued_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`, it.ID, it.Queue, it.Kind, it.Workspace, it.Key, it.Body,
			time.Hour.Milliseconds(), at.UnixMilli(), at.UnixMilli())
	}
	// The first event is on the queue already: it was moved, then written into the outbox again (enqueueing
	// is safe to repeat), and must not be delivered twice.
	exec(`INSERT INTO queue_items (id, queue, kind, workspace_id, order_key, body, state, attempts, last_error, retry_for_ms,
			run_at, lease_until, leased_by, give_up_at, created_at, updated_at)
		VALUES (?, ?, ?, ?, ?, ?, 'queued', 0, '', ?, ?, NULL, '', ?, ?, ?)`, written[0].ID, q, core.EventKind, ws,
		written[0].Key, written[0].Body, time.Hour.Milliseconds(), at.UnixMilli(), at.Add(time.Hour).UnixMilli(),
		at.UnixMilli(), at.UnixMilli())
	db.Close()

	st := openT(t, path)
	var tables int
	if err := st.rq.QueryRowContext(t.Context(), `SELECT count(*) FROM sqlite_master WHERE name = 'queue_outbox'`).Scan(&tables); err != nil || tables != 0 {
		t.Fatalf("outbox after the migration: %d tables, %v", tables, err)
	}
	if stats, err := st.QueueStats(t.Context(), q); err != nil || stats.Pending != len(written) {
		t.Fatalf("stats after the migration: %+v, %v; want %d pending", stats, err, len(written))
	}
	claimAllInOrder(t, st, q, written, at)
}
