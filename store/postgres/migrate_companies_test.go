package postgres_test

import (
	"testing"
	"time"

	"github.com/feedbridge/feedbridge/core"
	"github.com/feedbridge/feedbridge/store/postgres"
)

// TestCompanyCountMigration builds a schema at version 8, whose companies have neither a count nor a
// first-seen time, then opens the store: migration 9 must count each company's records and date it by its
// first record, or by the migration's time when it has none; new records then keep the count.
func TestCompanyCountMigration(t *testing.T) {
	o := olderSchema(t, func(v int, _ string) bool { return v >= 9 })
	ctx, u, exec := o.ctx, o.url, o.exec
	ws, acme, globex := core.NewID(), core.NewID(), core.NewID()
	exec(`INSERT INTO workspaces (id, name, plan, created_at) VALUES ($1, 'A', 'pro', now())`, string(ws))
	exec(`INSERT INTO companies (workspace_id, id, name, domain) VALUES ($1, $2, 'Acme', 'acme.com'), ($1, $3, 'Globex', 'globex.com')`,
		string(ws), string(acme), string(globex))
	first := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	for i := range 3 {
		exec(`INSERT INTO records (workspace_id, id, type, title, search_text, status, source, company_id, created_at, updated_at)
			VALUES ($1, $2, 'Feedback', 't', 't', 'Triage', 'API', $3, $4, $4)`, string(ws), string(core.NewID()), string(acme),
			first.Add(time.Duration(i)*time.Hour))
	}

	before := time.Now().Add(-time.Minute)
	st, err := postgres.Open(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	cs, err := st.CompanyList(ctx, ws, core.CompanyQuery{Limit: 10})
	if err != nil || len(cs) != 2 {
		t.Fatalf("companies: %+v, %v", cs, err)
	}
	if cs[0].ID != acme || cs[0].FeedbackCount != 3 || !cs[0].CreatedAt.Equal(first) {
		t.Errorf("acme after the migration: %+v", cs[0])
	}
	if cs[1].ID != globex || cs[1].FeedbackCount != 0 || cs[1].CreatedAt.Before(before) {
		t.Errorf("globex after the migration: %+v", cs[1])
	}
	exec(`INSERT INTO records (workspace_id, id, type, title, search_text, status, source, company_id, created_at, updated_at)
		VALUES ($1, $2, 'Feedback', 't', 't', 'Triage', 'API', $3, now(), now())`, string(ws), string(core.NewID()), string(globex))
	exec(`DELETE FROM records WHERE workspace_id = $1 AND company_id = $2 AND created_at = $3`, string(ws), string(acme), first)
	exec(`UPDATE records SET company_id = $3 WHERE workspace_id = $1 AND company_id = $2`, string(ws), string(acme), string(globex))
	cs, err = st.CompanyList(ctx, ws, core.CompanyQuery{Limit: 10})
	if err != nil || len(cs) != 2 || cs[0].ID != globex || cs[0].FeedbackCount != 3 || cs[1].FeedbackCount != 0 {
		t.Fatalf("counts after an insert, a delete and a move: %+v, %v", cs, err)
	}
}
