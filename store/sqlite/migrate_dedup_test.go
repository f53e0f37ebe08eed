package sqlite

import (
	"path/filepath"
	"testing"

	"github.com/feedbridge/feedbridge/core"
	"github.com/feedbridge/feedbridge/store/storetest"
)

// TestEmailDedupMigration builds a database at schema version 7, whose email records carry dedup keys of the
// Message-ID alone, then opens it: migration 8 must add each message's sender, so that the same message read
// again (after a UIDVALIDITY change) is still found, and must leave other keys alone.
func TestEmailDedupMigration(t *testing.T) {
	path := filepath.Join(t.TempDir(), "old.db")
	db, exec := oldDatabase(t, path, 7)
	ws := core.NewID()
	exec(`INSERT INTO workspaces(id, name, plan, created_at, num) VALUES (?, 'A', 'pro', 0, 1)`, ws)
	for i, r := range storetest.LegacyEmailRecords {
		exec(`INSERT INTO records(seq, id, workspace_id, type, title, search_text, status, source, customer_email,
			reporter, dedup_key, created_at, updated_at) VALUES (?, ?, ?, 'Feedback', 't', 't', 'Triage', ?, ?, ?, ?, 0, 0)`,
			1<<48|int64(i), core.NewID(), ws, r.Source, r.CustomerEmail, r.Reporter, r.Old)
	}
	db.Close()

	st := openT(t, path)
	storetest.CheckLegacyEmailRecords(t, st, ws, func(key string) (n int, err error) {
		err = st.r.QueryRow(`SELECT count(*) FROM records WHERE dedup_key = ?`, key).Scan(&n)
		return n, err
	})
}
