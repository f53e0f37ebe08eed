package postgres_test

import (
	"context"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/feedbridge/feedbridge/core"
	"github.com/feedbridge/feedbridge/store/postgres/pgtest"
)

// TestHistoryGoesWithRecord deletes a record whose status was moved: its history has no foreign key to
// cascade from the record, so the delete itself must leave none of it behind.
func TestHistoryGoesWithRecord(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := pgtest.Open(t)
	svc := core.NewService(st, core.Options{})
	ws := workspace(t, st, 0)
	res, err := svc.Submit(ctx, ws.ID, core.Submission{Type: core.RecordIdea, Title: "moved, then deleted"})
	if err != nil {
		t.Fatal(err)
	}
	id := res.Record.ID
	for _, to := range []string{"Planned", "In progress"} {
		if _, err := svc.Update(ctx, ws.ID, id, core.Patch{Status: &to}, ""); err != nil {
			t.Fatal(err)
		}
	}
	count := func() (n int) {
		t.Helper()
		if err := st.Pool().QueryRow(ctx, `SELECT count(*) FROM record_history WHERE workspace_id = $1 AND record_id = $2`, ws.ID, id).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if n := count(); n != 2 {
		t.Fatalf("history entries before the delete: %d, want 2", n)
	}
	if err := svc.Delete(ctx, ws.ID, id); err != nil {
		t.Fatal(err)
	}
	if n := count(); n != 0 {
		t.Fatalf("history entries after the delete: %d, want 0", n)
	}
}

// TestHistoryEntryWritesOneIndex holds the history to one index, the key a record's entries are read,
// deleted and scrubbed by: every change of a record writes an entry, and each further index on the table
// is one more insert per change.
func TestHistoryEntryWritesOneIndex(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := pgtest.Open(t)
	rows, err := st.Pool().Query(ctx, `SELECT pg_get_indexdef(indexrelid) FROM pg_index WHERE indrelid = 'record_history'::regclass`)
	if err != nil {
		t.Fatal(err)
	}
	defs, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	if len(defs) != 1 || !strings.Contains(defs[0], "UNIQUE INDEX record_history_pkey") ||
		!strings.HasSuffix(defs[0], "(workspace_id, record_id, seq)") {
		t.Fatalf("indexes of record_history: %q, want only its primary key on (workspace_id, record_id, seq)", defs)
	}
}
