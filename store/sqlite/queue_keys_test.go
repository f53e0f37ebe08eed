package sqlite

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/feedbridge/feedbridge/core"
)

// A create's event is written beside its record's insight job, and its index entries must land on the
// leaves the job's entries dirty anyway: a create with a subscriber writes about as many log pages as one
// without. Creates run one at a time, so no commit shares its pages with another create's.
func TestEventSharesItsJobsPages(t *testing.T) {
	ctx := t.Context()
	st, svc, plain, subbed := openSubscribed(t, "pages.db")
	n := 0
	// frames runs count creates in ws one at a time, the full-text drain they cause included, and returns
	// the log pages they wrote; the log starts empty and is far from the checkpointer's size.
	frames := func(ws core.ID, count int) int64 {
		var busy, log, done int64
		if err := st.ck.QueryRowContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`).Scan(&busy, &log, &done); err != nil || busy != 0 {
			t.Fatalf("checkpoint: busy %d, %v", busy, err)
		}
		for range count {
			n++
			if _, err := svc.Submit(ctx, ws, core.Submission{Type: core.RecordFeedback, Title: "Export is slow",
				Description:   "The CSV export times out after 30 seconds on large workspaces.",
				CustomerEmail: fmt.Sprintf("u%d@c%d.com", n, n%50)}); err != nil {
				t.Fatal(err)
			}
		}
		if err := st.FlushIndex(ctx); err != nil {
			t.Fatal(err)
		}
		fi, err := os.Stat(st.path + "-wal")
		if err != nil {
			t.Fatal(err)
		}
		return (fi.Size() - 32) / (4096 + 24)
	}
	// Both arms create in the same workspace, its subscriber set and removed in turns, so that they differ
	// only by the event.
	subs := []core.Subscriber{{Name: "bench", Workspace: subbed.ID, Events: []string{core.EventRecordCreated}}}
	const chunk, chunks = 20, 4
	frames(plain.ID, chunk) // warm-up: both workspaces' first pages
	frames(subbed.ID, chunk)
	var without, with int64
	for range chunks {
		svc.SetSubscribers(nil)
		without += frames(subbed.ID, chunk)
		svc.SetSubscribers(subs)
		with += frames(subbed.ID, chunk)
	}
	per := func(f int64) float64 { return float64(f) / (chunk * chunks) }
	t.Logf("log pages per create: with an event %.2f, without %.2f", per(with), per(without))
	if extra := per(with) - per(without); extra > 2 {
		t.Errorf("a create with an event writes %.2f log pages, without %.2f: the event adds %.2f", per(with), per(without), extra)
	}
}

// Every statement on the queue must still find its rows through an index now that the unique index and the
// key index are led by the item's id and key: a scan would read the whole queue, failed items and every
// other subscriber's backlog included.
func TestQueueStatementsSeek(t *testing.T) {
	st := openT(t, filepath.Join(t.TempDir(), "plan.db"))
	q := core.EventQueue("s")
	for _, c := range []struct {
		name, sql, index string
		args             []any
	}{
		{"enqueue's conflict check and held item", `SELECT seq FROM queue_items WHERE ` + heldItem, "sqlite_autoindex_queue_items_1 (id=? AND queue=?)",
			[]any{q, "i", "w", "x"}},
		{"claim's key check", `SELECT q.seq FROM queue_items q WHERE q.queue = ? AND q.state <> 'failed' AND ` + claimable +
			` ORDER BY q.seq LIMIT ?`, "queue_items_key (order_key=? AND queue=? AND seq<?)", []any{q, 1, 1, 5}},
		{"stats", `SELECT count(*) FROM queue_items WHERE queue = ?1 AND state <> 'failed'`, "queue_items_pending (queue=?)", []any{q}},
		{"kept items", `SELECT seq FROM queue_items WHERE queue = ?1 AND state <> 'failed'`, "queue_items_pending (queue=?)", []any{q}},
		{"undo of a record's job", `SELECT seq FROM queue_items WHERE queue = '` + core.InsightQueue +
			`' AND order_key <> '' AND order_key = ?1 AND workspace_id = ?2`, "queue_items_key (order_key=? AND queue=?)", []any{"r", "w"}},
	} {
		got := queryPlan(t, st, c.sql, c.args...)
		if !strings.Contains(got, c.index) || strings.Contains(got, "SCAN q ") || strings.Contains(got, "SCAN queue_items ") ||
			strings.HasSuffix(got, "SCAN queue_items") || strings.HasSuffix(got, "SCAN q") {
			t.Errorf("plan of %s: %s; want a search of %s", c.name, got, c.index)
		}
	}
}

// TestQueueKeysMigration builds a database at schema version 29 with queued, running and failed items of an
// event queue and of the insight queue, some items already finished (so the sequence of seq is past the
// highest seq stored), then opens it: every item is kept as it was, the next item's seq is past every seq
// ever handed out, and the events are still claimed in their order.
func TestQueueKeysMigration(t *testing.T) {
	path := filepath.Join(t.TempDir(), "old.db")
	db, exec := oldDatabase(t, path, 29)
	ws, q := core.NewID(), core.EventQueue("s")
	at := time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)
	insert := func(it core.QueueItem, state string) {
		exec(`INSERT INTO queue_items (id, queue, kind, workspace_id, order_key, body, state, attempts, last_error, retry_for_ms,
				run_at, lease_until, leased_by, give_up_at, created_at, updated_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, 0, '', ?, ?, NULL, '', ?, ?, ?)`, it.ID, it.Queue, it.Kind, ws, it.Key, it.Body, state,
			time.Hour.Milliseconds(), at.UnixMilli(), at.Add(time.Hour).UnixMilli(), at.UnixMilli(), at.UnixMilli())
	}
	var written []core.QueueItem
	for i := range 6 {
		it := core.QueueItem{ID: core.NewID(), Queue: q, Kind: core.EventKind, Workspace: ws,
			Key: fmt.Sprintf("k%d", i%2), Body: []byte(fmt.Sprint(i))}
		written = append(written, it)
		insert(it, core.JobQueued)
		insert(core.QueueItem{ID: core.NewID(), Queue: core.InsightQueue, Kind: core.KindInsight, Key: it.Key, Body: []byte{}}, core.JobQueued)
	}
	failed := core.QueueItem{ID: core.NewID(), Queue: q, Kind: core.EventKind, Key: "k9", Body: []byte("f")}
	insert(failed, "failed")
	// Items finished after these were written took the highest seqs, and are gone.
	insert(core.QueueItem{ID: core.NewID(), Queue: q, Kind: core.EventKind, Body: []byte("done")}, core.JobQueued)
	insert(core.QueueItem{ID: core.NewID(), Queue: q, Kind: core.EventKind, Body: []byte("done")}, core.JobQueued)
	exec(`DELETE FROM queue_items WHERE body = ?`, []byte("done"))
	var handedOut int64
	if err := db.QueryRowContext(context.Background(), `SELECT seq FROM sqlite_sequence WHERE name = 'queue_items'`).Scan(&handedOut); err != nil {
		t.Fatal(err)
	}
	db.Close()

	st := openT(t, path)
	ctx := t.Context()
	if stats, err := st.QueueStats(ctx, q); err != nil || stats.Pending != len(written) || stats.Failed != 1 {
		t.Fatalf("stats after the migration: %+v, %v; want %d pending, 1 failed", stats, err, len(written))
	}
	if stats, err := st.QueueStats(ctx, core.InsightQueue); err != nil || stats.Pending != len(written) {
		t.Fatalf("insight stats after the migration: %+v, %v; want %d pending", stats, err, len(written))
	}
	if kept, err := st.KeptItems(ctx, q, ws); err != nil || len(kept) != len(written)+1 || kept[len(kept)-1].ID != failed.ID {
		t.Fatalf("kept items after the migration: %d, %v; want %d, the failed one last", len(kept), err, len(written)+1)
	}
	claimAllInOrder(t, st, q, written, at)
	next := core.QueueItem{ID: core.NewID(), Queue: q, Kind: core.EventKind, Workspace: ws, Body: []byte("next")}
	if err := st.EnqueueItems(ctx, []core.QueueItem{next, next}); err != nil {
		t.Fatal(err)
	}
	var seq, copies int64
	if err := st.rq.QueryRowContext(ctx, `SELECT max(seq), count(*) FROM queue_items WHERE id = ?`, next.ID).Scan(&seq, &copies); err != nil {
		t.Fatal(err)
	}
	if seq <= handedOut || copies != 1 {
		t.Fatalf("the next item has seq %d (%d copies), want one past %d", seq, copies, handedOut)
	}
}
