package sqlite

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/feedbridge/feedbridge/core"
)

// TestHistoryByRecordMigration builds a database just before record_history is keyed by record, with two
// records' entries interleaved, then opens it: each record keeps its entries in their order, and the next
// entry of a record comes after them.
func TestHistoryByRecordMigration(t *testing.T) {
	before := migrationBefore(t, "history_by_record")
	path := filepath.Join(t.TempDir(), "old.db")
	db, exec := oldDatabase(t, path, before)
	ws, a, b := core.NewID(), core.NewID(), core.NewID()
	exec(`INSERT INTO workspaces(id, name, plan, created_at, num) VALUES (?, 'A', 'pro', 0, 1)`, ws)
	for i, id := range []core.ID{a, b} {
		exec(`INSERT INTO records(seq, id, workspace_id, type, title, search_text, status, source, created_at, updated_at)
			VALUES (?, ?, ?, 'Idea', 't', 't', 'Triage', 'API', 0, 0)`, 1<<48|int64(i), id, ws)
	}
	for i := range 6 {
		exec(`INSERT INTO record_history(workspace_id, record_id, at, actor, action, changes) VALUES (?, ?, ?, 'user:ana', 'updated', ?)`,
			ws, []core.ID{a, b}[i%2], 1000+i, `{"title":["`+string(rune('a'+i))+`","x"]}`)
	}
	db.Close()

	st := openT(t, path)
	ctx, planned := t.Context(), "Planned"
	if _, err := core.NewService(st, core.Options{}).Update(ctx, ws, a, core.Patch{Status: &planned}, ""); err != nil {
		t.Fatal(err)
	}
	for id, want := range map[core.ID][]string{a: {"updated a", "updated c", "updated e", "status"}, b: {"updated b", "updated d", "updated f"}} {
		h, err := st.History(ctx, ws, id)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, e := range h {
			s := e.Action
			if v, ok := e.Changes["title"]; ok {
				s += " " + v[0].(string)
			}
			got = append(got, s)
		}
		if strings.Join(got, ",") != strings.Join(want, ",") {
			t.Errorf("history of %s: %v, want %v", id, got, want)
		}
	}
}
