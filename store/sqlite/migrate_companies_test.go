package sqlite

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/feedbridge/feedbridge/core"
)

// TestCompanyCountMigration builds a database at schema version 11, whose companies have neither a count
// nor a first-seen time, then opens it: migration 12 must count each company's records and date it by its
// first record, or by the migration's time when it has none.
func TestCompanyCountMigration(t *testing.T) {
	path := filepath.Join(t.TempDir(), "old.db")
	db, exec := oldDatabase(t, path, 11)
	ws, acme, globex := core.NewID(), core.NewID(), core.NewID()
	exec(`INSERT INTO workspaces(id, name, plan, created_at, num) VALUES (?, 'A', 'pro', 0, 1)`, ws)
	exec(`INSERT INTO companies(id, workspace_id, name, name_key, domain) VALUES (?, ?, 'Acme', 'acme', 'acme.com'),
		(?, ?, 'Globex', 'globex', 'globex.com')`, acme, ws, globex, ws)
	first := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	for i := range 3 {
		exec(`INSERT INTO records(seq, id, workspace_id, type, title, search_text, status, source, company_id, created_at, updated_at)
			VALUES (?, ?, ?, 'Feedback', 't', 't', 'Triage', 'API', ?, ?, 0)`, 1<<48|int64(i), core.NewID(), ws, acme,
			first.Add(time.Duration(i)*time.Hour).UnixMilli())
	}
	exec(`INSERT INTO records_fts_pending(seq) SELECT seq FROM records`) // as every write queues its records
	db.Close()

	before := time.Now().Add(-time.Second)
	st := openT(t, path)
	cs, err := st.CompanyList(t.Context(), ws, core.CompanyQuery{Limit: 10})
	if err != nil || len(cs) != 2 {
		t.Fatalf("companies: %+v, %v", cs, err)
	}
	if cs[0].ID != acme || cs[0].FeedbackCount != 3 || !cs[0].CreatedAt.Equal(first) {
		t.Errorf("acme after the migration: %+v", cs[0])
	}
	if cs[1].ID != globex || cs[1].FeedbackCount != 0 || cs[1].CreatedAt.Before(before) {
		t.Errorf("globex after the migration: %+v", cs[1])
	}
	// From now on the count is kept: an insert (queued uncounted, as a create queues it, and counted by the
	// read's fold), a delete and a move to another company.
	for _, q := range []string{
		`INSERT INTO records(seq, id, workspace_id, type, title, search_text, status, source, company_id, created_at, updated_at)
			VALUES (1 << 48 | 99, '` + string(core.NewID()) + `', '` + string(ws) + `', 'Feedback', 't', 't', 'Triage', 'API', '` + string(globex) + `', 0, 0)`,
		`INSERT INTO records_fts_pending(seq, counted) VALUES (1 << 48 | 99, 0)`,
		`DELETE FROM records WHERE seq = 1 << 48 | 0`,
		`UPDATE records SET company_id = '` + string(globex) + `' WHERE company_id = '` + string(acme) + `'`,
	} {
		if _, err := st.w.ExecContext(t.Context(), q); err != nil {
			t.Fatal(err)
		}
	}
	cs, err = st.CompanyList(t.Context(), ws, core.CompanyQuery{Limit: 10})
	if err != nil || len(cs) != 2 || cs[0].ID != globex || cs[0].FeedbackCount != 3 || cs[1].FeedbackCount != 0 {
		t.Fatalf("counts after an insert, a delete and a move: %+v, %v", cs, err)
	}
}
