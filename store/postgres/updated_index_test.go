package postgres_test

import (
	"context"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/feedbridge/feedbridge/store/postgres/pgtest"
)

// TestRefreshReadsChangedIdeasByIndex: the suggestion index's refresh asks for a workspace's Ideas changed
// since its last read. With 20,000 Ideas of which 10 changed, the planner reads them through
// records_updated, not by walking every Idea of the workspace.
func TestRefreshReadsChangedIdeasByIndex(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := pgtest.Open(t)
	ws := workspace(t, st, 0).ID
	pool := st.Pool()
	for _, q := range []string{
		`INSERT INTO records (workspace_id, id, type, title, search_text, status, source, created_at, updated_at)
		SELECT $1, 'a' || lpad(to_hex(g), 23, '0'), 'Idea', 'idea ' || g, 'idea ' || g, 'Triage', 'API',
			now() - g * interval '1 minute', now() - interval '1 day' FROM generate_series(1, 20000) g`,
		`UPDATE records SET updated_at = now() WHERE workspace_id = $1 AND id IN
			(SELECT 'a' || lpad(to_hex(g * 1999), 23, '0') FROM generate_series(1, 10) g)`,
		`ANALYZE records`,
	} {
		args := []any{ws}
		if strings.HasPrefix(q, "ANALYZE") {
			args = nil
		}
		if _, err := pool.Exec(ctx, q, args...); err != nil {
			t.Fatal(err)
		}
	}
	rows, err := pool.Query(ctx, `EXPLAIN SELECT id FROM records WHERE workspace_id = $1 AND type = 'Idea'
		AND updated_at >= now() - interval '1 hour' ORDER BY created_at, id LIMIT 500`, ws)
	if err != nil {
		t.Fatal(err)
	}
	plan, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(strings.Join(plan, "\n"), "records_updated") {
		t.Errorf("the refresh's read does not use records_updated:\n%s", strings.Join(plan, "\n"))
	}
}
