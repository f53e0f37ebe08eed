package postgres_test

import (
	"context"
	"testing"
	"time"

	"github.com/feedbridge/feedbridge/core"
	"github.com/feedbridge/feedbridge/store/internal/listbench"
	"github.com/feedbridge/feedbridge/store/postgres/pgtest"
)

// TestProductListingWalksProductIndex: of 20,000 Feedback, 500 belong to one product, half to another
// and the rest to none; another workspace has newer records of the same product id. A page by the product,
// newest or oldest first, after a cursor, within dates, or with a status and a source, walks
// records_product in listing order (no walk of the type's records, no sort of the product's records), and
// holds the same records, in the same order, as a plain filter of the workspace's records. (With a tag the
// listing walks the tag's entries instead, as TestRareTagListingWalksRecordTags checks: a tag rare among
// the product's records would leave the product's walk to pass all of them.)
func TestProductListingWalksProductIndex(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := pgtest.Open(t)
	ws, other := workspace(t, st, 0).ID, workspace(t, st, 0).ID
	pool := st.Pool()
	for _, q := range []struct {
		ws  core.ID
		sql string
	}{
		{ws, `INSERT INTO records (workspace_id, id, type, title, search_text, status, source, product_id, tag_ids,
				created_at, updated_at)
			SELECT $1, 'a' || lpad(to_hex(g), 23, '0'), 'Feedback', 'rec ' || g, 'rec ' || g,
				CASE WHEN (g / 40) % 2 = 1 THEN 'Processed' ELSE 'Triage' END,
				CASE WHEN g % 3 = 0 THEN 'Slack' ELSE 'API' END,
				CASE WHEN g % 40 = 7 THEN 'p1' WHEN g % 2 = 0 THEN 'p2' ELSE '' END,
				CASE WHEN g % 10 = 3 THEN ARRAY['common'] ELSE '{}' END,
				now() - g * interval '1 minute', now() - g * interval '1 minute' FROM generate_series(1, 20000) g`},
		{other, `INSERT INTO records (workspace_id, id, type, title, search_text, status, source, product_id, tag_ids,
				created_at, updated_at)
			SELECT $1, 'b' || lpad(to_hex(g), 23, '0'), 'Feedback', 'other ' || g, 'other ' || g, 'Triage', 'API',
				'p1', ARRAY['common'], now() + g * interval '1 minute', now() FROM generate_series(1, 200) g`},
	} {
		if _, err := pool.Exec(ctx, q.sql, q.ws); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := pool.Exec(ctx, `ANALYZE records, record_tags`); err != nil {
		t.Fatal(err)
	}
	var mid core.Record // the product's 20th newest record, a cursor and a window's end
	if err := pool.QueryRow(ctx, `SELECT id, created_at FROM records WHERE workspace_id = $1 AND product_id = 'p1'
		ORDER BY created_at DESC, id DESC OFFSET 19 LIMIT 1`, ws).Scan(&mid.ID, &mid.CreatedAt); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		q     core.ListQuery
		where string // the same listing as a plain filter of the records, with its args after the workspace
		args  []any
	}{
		{"newest first", core.ListQuery{}, "", nil},
		{"oldest first", core.ListQuery{Asc: true}, "", nil},
		{"after a cursor", core.ListQuery{After: &core.Cursor{CreatedAt: mid.CreatedAt, ID: mid.ID}},
			"AND (created_at, id) < ($2, $3)", []any{mid.CreatedAt, mid.ID}},
		{"within dates", core.ListQuery{From: mid.CreatedAt.Add(-10 * time.Hour), To: mid.CreatedAt},
			"AND created_at BETWEEN $2::timestamptz - interval '10 hours' AND $2::timestamptz", []any{mid.CreatedAt}},
		{"with a status and a source", core.ListQuery{Statuses: []string{core.StatusTriage}, Source: "API"},
			"AND status = 'Triage' AND source = 'API'", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.q.ProductID = "p1"
			q := listbench.Page(tc.q)
			q.Limit = 20
			// The page walks the product's entries in its order; the one sort of the records' dates is the
			// outer query's, of the page's rows.
			wantOrderedWalk(t, listingPlan(t, st, ws, q), "Index Scan using records_product", "Index Scan Backward using records_product",
				q.Asc, "the product's page does not walk records_product in order")
			samePage(t, st, ws, q, "AND type = 'Feedback' AND product_id = 'p1' AND status <> 'Merged' "+tc.where, tc.args, 5)
		})
	}
}
