package postgres_test

import (
	"testing"

	"github.com/feedbridge/feedbridge/core"
	"github.com/feedbridge/feedbridge/store/postgres"
	"github.com/feedbridge/feedbridge/store/storetest"
)

// TestEmailDedupMigration builds a schema at version 3, whose email records carry dedup keys of the
// Message-ID alone, then opens the store: migration 4 must add each message's sender, so that the same
// message read again is still found, and must leave other keys alone.
func TestEmailDedupMigration(t *testing.T) {
	o := olderSchema(t, func(v int, _ string) bool { return v >= 4 })
	ctx, u, pool, exec := o.ctx, o.url, o.pool, o.exec
	ws := core.NewID()
	exec(`INSERT INTO workspaces (id, name, plan, created_at) VALUES ($1, 'A', 'pro', now())`, string(ws))
	for _, r := range storetest.LegacyEmailRecords {
		exec(`INSERT INTO records (workspace_id, id, type, title, search_text, status, source, customer_email, reporter,
			dedup_key, created_at, updated_at) VALUES ($1, $2, 'Feedback', 't', 't', 'Triage', $3, $4, $5, $6, now(), now())`,
			string(ws), string(core.NewID()), r.Source, r.CustomerEmail, r.Reporter, r.Old)
	}

	st, err := postgres.Open(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	storetest.CheckLegacyEmailRecords(t, st, ws, func(key string) (n int, err error) {
		err = pool.QueryRow(ctx, `SELECT count(*) FROM records WHERE dedup_key = $1`, key).Scan(&n)
		return n, err
	})
}
