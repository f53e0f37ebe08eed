package postgres_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/feedbridge/feedbridge/core"
	"github.com/feedbridge/feedbridge/store/postgres"
	"github.com/feedbridge/feedbridge/store/postgres/pgtest"
)

// TestBoardColumnReadsItsOwnRows: a column of the ideas board is one status of a type by demand. With
// 20,000 Ideas all in Triage and 5,000 Planned Features (so that the planner expects some Planned Ideas),
// the first page of the empty Planned column and of the full one each read a handful of index pages, not
// every Idea of the workspace in demand order.
func TestBoardColumnReadsItsOwnRows(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := pgtest.Open(t)
	ws := workspace(t, st, 0).ID
	pool := st.Pool()
	if _, err := pool.Exec(ctx, `INSERT INTO records (workspace_id, id, type, title, search_text, status, source, created_at, updated_at)
		SELECT $1, 'a' || lpad(to_hex(g), 23, '0'), 'Idea', 'idea ' || g, 'idea ' || g, 'Triage', 'API',
			now() - g * interval '1 minute', now() FROM generate_series(1, 20000) g`, ws); err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(ctx, `INSERT INTO records (workspace_id, id, type, title, search_text, status, source, created_at, updated_at)
		SELECT $1, 'b' || lpad(to_hex(g), 23, '0'), 'Feature', 'feature ' || g, 'feature ' || g, 'Planned', 'API',
			now() - g * interval '1 minute', now() FROM generate_series(1, 5000) g`, ws); err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(ctx, `ANALYZE records`); err != nil {
		t.Fatal(err)
	}
	for _, status := range []string{"Planned", core.StatusTriage} {
		sql, args := postgres.ListSQL(ws, core.ListQuery{Type: core.RecordIdea, Statuses: []string{status},
			Order: core.OrderDemand, Limit: 11})
		var raw []byte
		if err := pool.QueryRow(ctx, "EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) "+sql,
			append([]any{pgx.QueryExecModeExec}, args...)...).Scan(&raw); err != nil {
			t.Fatal(err)
		}
		var plan []struct {
			Plan struct {
				Hit  int `json:"Shared Hit Blocks"`
				Read int `json:"Shared Read Blocks"`
			} `json:"Plan"`
		}
		if err := json.Unmarshal(raw, &plan); err != nil || len(plan) != 1 {
			t.Fatalf("EXPLAIN: %v in %s", err, raw)
		}
		if pages := plan[0].Plan.Hit + plan[0].Plan.Read; pages > 60 {
			t.Errorf("the %s column read %d pages:\n%s", status, pages, raw)
		}
	}
}
