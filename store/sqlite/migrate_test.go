package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/feedbridge/feedbridge/core"
)

// TestWorkspaceSeqMigrationKeepsRecordsFindable builds a database at schema version 4 whose records carry
// seqs of the earlier layouts, then opens it: migration 5 must renumber them so that search, paging and
// new writes work as on a fresh store.
func TestWorkspaceSeqMigrationKeepsRecordsFindable(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "old.db")
	db, exec := oldDatabase(t, path, 4)
	a, b := core.NewID(), core.NewID()
	exec(`INSERT INTO workspaces(id, name, plan, created_at) VALUES (?, 'A', 'pro', 0), (?, 'B', 'pro', 0)`, a, b)
	type old struct {
		ws      core.ID
		seq     int64
		created time.Time
		title   string
	}
	base := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	rows := []old{
		{a, -5, base, "needle one"},
		{a, -1 << 40, base.Add(2 * time.Hour), "needle two"},
		{a, 123456789, time.Date(1950, 1, 1, 0, 0, 0, 0, time.UTC), "needle old"},
		{b, -7, base.Add(time.Hour), "needle theirs"},
		{a, -9, base.Add(2 * time.Hour), "needle three, same hour"},
	}
	ids := map[string]core.ID{}
	for _, r := range rows {
		id := core.NewIDAt(r.created)
		ids[r.title] = id
		exec(`INSERT INTO records(seq, id, workspace_id, type, title, search_text, status, source, created_at, updated_at)
			VALUES (?, ?, ?, 'Idea', ?, ?, 'Triage', 'API', ?, ?)`, r.seq, id, r.ws, r.title, core.Fold(r.title), ms(r.created), ms(r.created))
		exec(`INSERT INTO records_fts(rowid, search_text) VALUES (?, ?)`, r.seq, core.Fold(r.title))
	}
	db.Close()

	st := openT(t, path)
	if err := st.Ping(ctx); err != nil {
		t.Fatalf("ping after migrating: %v", err)
	}
	var minSeq int64
	if err := st.r.QueryRow(`SELECT min(seq) FROM records`).Scan(&minSeq); err != nil || minSeq < 1<<48 {
		t.Fatalf("records keep old seqs: min %d, %v", minSeq, err)
	}
	svc := core.NewService(st, core.Options{})
	fresh, err := svc.Submit(ctx, a, core.Submission{Type: core.RecordIdea, Title: "needle new", CreatedAt: base.Add(time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	want := []core.ID{ids["needle three, same hour"], ids["needle two"], fresh.Record.ID, ids["needle one"], ids["needle old"]}
	if ids["needle two"] > ids["needle three, same hour"] {
		want[0], want[1] = want[1], want[0]
	}
	for _, limit := range []string{"1", "2", "100"} {
		var got []core.ID
		req := core.ListRequest{Search: "NEEDLE", Limit: limit}
		for {
			p, err := svc.List(ctx, a, req)
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range p.Records {
				got = append(got, r.ID)
			}
			if p.Next == "" {
				break
			}
			req.Cursor = p.Next
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("limit %s: search after migrating gives %v, want %v", limit, got, want)
		}
	}
	theirs, err := svc.List(ctx, b, core.ListRequest{Search: "needle"})
	if err != nil || len(theirs.Records) != 1 || theirs.Records[0].ID != ids["needle theirs"] {
		t.Fatalf("B's search after migrating: %+v, %v", theirs.Records, err)
	}
}

// oldDatabase creates a database at path with the schema of the given version, as an earlier binary left it,
// and returns it with a helper that runs a statement or fails the test.
func oldDatabase(t *testing.T, path string, version int) (*sql.DB, func(q string, args ...any)) {
	t.Helper()
	db, err := sql.Open("sqlite", dsn(path, busyTimeout, ""))
	if err != nil {
		t.Fatal(err)
	}
	migs, err := migrations()
	if err != nil {
		t.Fatal(err)
	}
	exec := func(q string, args ...any) {
		t.Helper()
		if _, err := db.ExecContext(context.Background(), q, args...); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	exec(`CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL)`)
	for _, m := range migs[:version] {
		exec(m.SQL)
		exec(`INSERT INTO schema_migrations VALUES (?, ?, 0)`, m.Version, m.Name)
	}
	return db, exec
}
