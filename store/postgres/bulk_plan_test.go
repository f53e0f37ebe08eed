package postgres_test

import (
	"context"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/feedbridge/feedbridge/core"
	"github.com/feedbridge/feedbridge/store/postgres"
	"github.com/feedbridge/feedbridge/store/postgres/pgtest"
)

// TestBulkPlansProbeEachRow plans the bulk statements over a workspace that grew since its tables were
// last analyzed, as during a long import, and checks that each row of the batch meets the workspace's
// contacts and dedup keys through an index probe: a hash or a scan of all of them costs each batch in
// proportion to the store, so an import slows as it goes.
func TestBulkPlansProbeEachRow(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st, err := postgres.Open(ctx, pgtest.URL(t))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ws := workspace(t, st, 0).ID
	for _, q := range []string{
		`INSERT INTO contacts (workspace_id, id, email, email_key, name, company_id)
		 SELECT $1, 'c' || g, 'u' || g || '@x.example', 'u' || g || '@x.example', 'U', '' FROM generate_series(1, 20000) g`,
		`INSERT INTO records (workspace_id, id, type, title, search_text, status, source, dedup_key, created_at, updated_at)
		 SELECT $1, 'r' || g, 'Feedback', 't', 't', 'Triage', 'CSV', 'k' || g, now(), now() FROM generate_series(1, 5000) g`,
	} {
		if _, err := st.Pool().Exec(ctx, q, ws); err != nil {
			t.Fatal(err)
		}
	}
	err = pgx.BeginFunc(ctx, st.Pool(), func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, postgres.BulkSQL.Table); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `INSERT INTO pg_temp.bulk_records
			SELECT g, 'n' || g, 'Feedback', 't', '', '', 't', 'Triage', 'CSV', '', '', '{}', 'v' || g || '@x.example',
				'v' || g || '@x.example', 'V', 'nc' || g, 'x.example', 'X', 'co', '', '', '', 'nk' || g, 'e' || g, now(), now(),
				'', NULL, '', NULL
			FROM generate_series(1, 1000) g`); err != nil {
			return err
		}
		for _, stmt := range []struct {
			name, sql string
			args      []any
		}{
			{"contacts", postgres.BulkSQL.Contacts, []any{ws}},
			{"records", postgres.BulkSQL.Insert, []any{ws, core.InsightQueue, core.KindInsight, int64(1000)}},
		} {
			plan, err := explain(ctx, tx, stmt.sql, stmt.args...)
			if err != nil {
				return err
			}
			for _, line := range strings.Split(plan, "\n") {
				if (strings.Contains(line, " on contacts ") || strings.Contains(line, " on records x")) &&
					!strings.Contains(line, "Insert on") && !strings.Contains(line, "Index Scan") && !strings.Contains(line, "Index Only Scan") {
					t.Errorf("%s: the batch meets the store by a scan of the workspace, not a probe per row:\n%s", stmt.name, plan)
					break
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// explain returns the plan of sql with args, without running it.
func explain(ctx context.Context, tx pgx.Tx, sql string, args ...any) (string, error) {
	rows, err := tx.Query(ctx, "EXPLAIN "+sql, args...)
	if err != nil {
		return "", err
	}
	lines, err := pgx.CollectRows(rows, pgx.RowTo[string])
	return strings.Join(lines, "\n"), err
}
