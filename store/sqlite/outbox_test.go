package sqlite

import (
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/feedbridge/feedbridge/core"
)

// TestOutboxMovesInOrderAcrossBatches writes more events than one move takes, in separate commits and
// interleaved between keys, then claims them all: every event must be handed out exactly once, those of a
// key in the order they were written, each due and giving up as counted from when it was written, and the
// counts must include what is still in the outbox. A repeated event is dropped as enqueueing it again is.
// The store is a command's, which has no background mover: the claims alone move the outbox.
func TestOutboxMovesInOrderAcrossBatches(t *testing.T) {
	ctx := t.Context()
	st, err := OpenMode(ctx, filepath.Join(t.TempDir(), "outbox.db"), ModeCommand)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	at := time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)
	st.now = func() time.Time { return at }
	ws, q := core.NewID(), core.EventQueue("s")
	const n, keys = outboxBatch*2 + 37, 7
	var written []core.QueueItem
	for i := 0; i < n; {
		var batch []core.QueueItem
		for ; i < n && len(batch) < 300; i++ {
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
	if stats, err := st.QueueStats(ctx, q); err != nil || stats.Pending != n+1 {
		t.Fatalf("stats before any claim: %+v, %v; want %d pending (the repeat is still in the outbox)", stats, err, n+1)
	}

	st.now = func() time.Time { return at.Add(time.Minute) }
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
			i := order[it.ID]
			if i < next[it.Key] {
				t.Fatalf("event %d of %s handed out after a later one of its key", i, it.Key)
			}
			next[it.Key] = i + 1
			if !it.RunAt.Equal(at) || !it.GiveUpAt.Equal(at.Add(time.Hour)) || string(it.Body) != fmt.Sprint(i) {
				t.Fatalf("event %d: run_at %v, give_up_at %v, body %q; want written at %v", i, it.RunAt, it.GiveUpAt, it.Body, at)
			}
			if err := st.FinishItem(ctx, it, "w"); err != nil {
				t.Fatal(err)
			}
			seen++
		}
	}
	if seen != n {
		t.Fatalf("claimed %d events, want %d", seen, n)
	}
	var left int
	if err := st.rq.QueryRowContext(ctx, `SELECT count(*) FROM queue_outbox`).Scan(&left); err != nil || left != 0 {
		t.Fatalf("outbox after the claims: %d rows, %v", left, err)
	}
	if stats, err := st.QueueStats(ctx, q); err != nil || stats != (core.QueueStats{}) {
		t.Fatalf("stats after the claims: %+v, %v", stats, err)
	}
}

// TestOutboxMovedWithoutClaim: the daemon's store moves events onto the queue with no claim running, those
// a command wrote to the same file included, and the queue then hands them out in order.
func TestOutboxMovedWithoutClaim(t *testing.T) {
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "outbox.db")
	st := openT(t, path)
	cmd, err := OpenMode(ctx, path, ModeCommand)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Close() })
	ws, q := core.NewID(), core.EventQueue("s")
	var written []core.QueueItem
	for i := range outboxBatch*2 + 5 {
		written = append(written, core.QueueItem{ID: core.NewID(), Queue: q, Kind: core.EventKind, Workspace: ws,
			Key: "k", Body: []byte(fmt.Sprint(i)), RetryFor: time.Hour})
	}
	half := len(written) / 2
	if err := st.EnqueueItems(ctx, written[:half]); err != nil {
		t.Fatal(err)
	}
	if err := cmd.EnqueueItems(ctx, written[half:]); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(20 * time.Millisecond) {
		var left, queued int
		if err := st.rq.QueryRowContext(ctx, `SELECT (SELECT count(*) FROM queue_outbox),
			(SELECT count(*) FROM queue_items WHERE queue = ?)`, q).Scan(&left, &queued); err != nil {
			t.Fatal(err)
		}
		if left == 0 && queued == len(written) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("outbox not moved without a claim: %d rows left, %d on the queue", left, queued)
		}
	}
	for i, want := range written {
		its, err := st.ClaimItems(ctx, q, "w", 5, time.Minute)
		if err != nil || len(its) != 1 || its[0].ID != want.ID {
			t.Fatalf("claim %d: %v, %v; want the next event of the key, %s", i, its, err, want.ID)
		}
		if err := st.FinishItem(ctx, its[0], "w"); err != nil {
			t.Fatal(err)
		}
	}
}
