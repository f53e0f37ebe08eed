package postgres_test

import (
	"context"
	"testing"
	"time"

	"github.com/feedbridge/feedbridge/core"
	"github.com/feedbridge/feedbridge/store/internal/listbench"
	"github.com/feedbridge/feedbridge/store/postgres/pgtest"
)

// TestRareTagListingWalksRecordTags: of 20,000 Feedback, 50 carry a rare tag and a tenth a common one.
// A page by the rare tag, newest or oldest first, after a cursor or within a date window, walks that tag's
// entries in record_tags in listing order (no sort of the tag's records, no walk of the type's records),
// and holds the same records, in the same order, as the records' own test of their tags.
func TestRareTagListingWalksRecordTags(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := pgtest.Open(t)
	ws := workspace(t, st, 0).ID
	pool := st.Pool()
	if _, err := pool.Exec(ctx, `INSERT INTO records (workspace_id, id, type, title, search_text, status, source, tag_ids,
			created_at, updated_at)
		SELECT $1, 'a' || lpad(to_hex(g), 23, '0'), 'Feedback', 'rec ' || g, 'rec ' || g, 'Triage', 'API',
			CASE WHEN g % 400 = 7 THEN ARRAY['rare'] WHEN g % 10 = 3 THEN ARRAY['common', 'other'] ELSE '{}' END,
			now() - g * interval '1 minute', now() - g * interval '1 minute' FROM generate_series(1, 20000) g`, ws); err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(ctx, `ANALYZE records, record_tags`); err != nil {
		t.Fatal(err)
	}
	var mid core.Record // the rare tag's 20th newest record, a cursor and a window's end
	if err := pool.QueryRow(ctx, `SELECT id, created_at FROM records WHERE workspace_id = $1 AND tag_ids @> '{rare}'
		ORDER BY created_at DESC, id DESC OFFSET 19 LIMIT 1`, ws).Scan(&mid.ID, &mid.CreatedAt); err != nil {
		t.Fatal(err)
	}
	rare := []core.ID{"rare"}
	for _, tc := range []struct {
		name  string
		q     core.ListQuery
		where string // the same listing as a test of the records' tags, with its args after the workspace
		args  []any
		want  int
	}{
		{"newest first", core.ListQuery{TagIDs: rare}, "", nil, 20},
		{"oldest first", core.ListQuery{TagIDs: rare, Asc: true}, "", nil, 20},
		{"after a cursor", core.ListQuery{TagIDs: rare, After: &core.Cursor{CreatedAt: mid.CreatedAt, ID: mid.ID}},
			"AND (created_at, id) < ($2, $3)", []any{mid.CreatedAt, mid.ID}, 20},
		{"within dates", core.ListQuery{TagIDs: rare, From: mid.CreatedAt.Add(-time.Hour), To: mid.CreatedAt},
			"AND created_at BETWEEN $2::timestamptz - interval '1 hour' AND $2::timestamptz", []any{mid.CreatedAt}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q := listbench.Page(tc.q)
			q.Limit = 20
			// The page walks the tag's entries in its order; the one sort of the records' dates is the outer
			// query's, of the page's rows.
			wantOrderedWalk(t, listingPlan(t, st, ws, q), "Scan using record_tags_pkey", "Scan Backward using record_tags_pkey",
				q.Asc, "the rare tag's page does not walk record_tags in order")
			samePage(t, st, ws, q, "AND tag_ids @> '{rare}' "+tc.where, tc.args, tc.want)
		})
	}
}

// TestRecordTagsFollowRecords: record_tags holds exactly one entry per distinct tag of every record after
// inserts, tag edits, a change of type and deletes, untagged records included.
func TestRecordTagsFollowRecords(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := pgtest.Open(t)
	ws := workspace(t, st, 0).ID
	pool := st.Pool()
	check := func(step string) {
		t.Helper()
		var extra, missing int
		err := pool.QueryRow(ctx, `WITH want AS (SELECT DISTINCT workspace_id, t AS tag_id, type, created_at, id
				FROM records, unnest(tag_ids) t WHERE workspace_id = $1),
			have AS (SELECT workspace_id, tag_id, type, created_at, id FROM record_tags WHERE workspace_id = $1)
			SELECT (SELECT count(*) FROM (SELECT * FROM have EXCEPT SELECT * FROM want) x),
			       (SELECT count(*) FROM (SELECT * FROM want EXCEPT SELECT * FROM have) x)`, ws).Scan(&extra, &missing)
		if err != nil {
			t.Fatal(err)
		}
		if extra != 0 || missing != 0 {
			t.Errorf("after %s: %d entries of record_tags without their record's tag, %d tags without an entry", step, extra, missing)
		}
	}
	exec := func(q string) {
		t.Helper()
		if _, err := pool.Exec(ctx, q, ws); err != nil {
			t.Fatal(err)
		}
	}
	exec(`INSERT INTO records (workspace_id, id, type, title, search_text, status, source, tag_ids, created_at, updated_at)
		SELECT $1, 'r' || g, 'Feedback', 't', 't', 'Triage', 'API',
			CASE g % 4 WHEN 0 THEN '{}' WHEN 1 THEN ARRAY['a'] WHEN 2 THEN ARRAY['a', 'b', 'a'] ELSE ARRAY['c'] END,
			now() - g * interval '1 minute', now() FROM generate_series(1, 40) g`)
	check("inserts")
	exec(`UPDATE records SET tag_ids = ARRAY['d', 'a'] WHERE workspace_id = $1 AND id IN ('r1', 'r4', 'r6')`)
	check("tag edits")
	exec(`UPDATE records SET tag_ids = '{}' WHERE workspace_id = $1 AND id IN ('r2', 'r3')`)
	check("tags removed")
	exec(`UPDATE records SET type = 'Idea' WHERE workspace_id = $1 AND id IN ('r5', 'r8')`)
	check("a change of type")
	exec(`UPDATE records SET status = 'Processed', updated_at = now() WHERE workspace_id = $1 AND id IN ('r7', 'r9')`)
	check("a status move")
	exec(`DELETE FROM records WHERE workspace_id = $1 AND id IN ('r1', 'r10', 'r11', 'r12')`)
	check("deletes")
	var n int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM record_tags WHERE workspace_id = $1`, ws).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n == 0 {
		t.Fatal("record_tags is empty")
	}
}
