package postgres_test

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/feedbridge/feedbridge/core"
	"github.com/feedbridge/feedbridge/store/postgres"
	"github.com/feedbridge/feedbridge/store/postgres/pgtest"
)

// replicas opens n stores on one fresh database, as n daemons sharing it would.
func replicas(t *testing.T, n int) []*postgres.Store {
	t.Helper()
	u := pgtest.URL(t)
	out := make([]*postgres.Store, n)
	for i := range out {
		s, err := postgres.Open(context.Background(), u)
		if err != nil {
			t.Fatalf("open replica %d: %v", i, err)
		}
		t.Cleanup(func() { s.Close() })
		out[i] = s
	}
	return out
}

// workspace makes a workspace through the service, so that the stored values are the ones the daemon writes.
func workspace(t testing.TB, st core.Store, limit int) core.Workspace {
	t.Helper()
	w, err := core.NewService(st, core.Options{}).CreateWorkspace(context.Background(), "Acme", core.PlanPro, limit)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// newRecord is a minimal valid record as core.Service would hand it to the store.
func newRecord(title string) core.NewRecord {
	now := time.Now().UTC().Truncate(time.Millisecond)
	return core.NewRecord{ID: core.NewIDAt(now), Type: core.RecordFeedback, Title: title, Description: title,
		SearchText: core.Fold(title + "\n" + title), Status: core.StatusTriage, Source: "API", CreatedAt: now, UpdatedAt: now}
}

// listingPlan is PostgreSQL's plan of the listing's statement, sent as the store sends it.
func listingPlan(t *testing.T, st *postgres.Store, ws core.ID, q core.ListQuery) string {
	t.Helper()
	sql, args := postgres.ListSQL(ws, q)
	rows, err := st.Pool().Query(context.Background(), "EXPLAIN "+sql, append([]any{pgx.QueryExecModeExec}, args...)...)
	if err != nil {
		t.Fatal(err)
	}
	plan, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	return strings.Join(plan, "\n")
}

// samePage checks that the store's page of q holds the records, in their order, that a plain filter of
// the workspace's records selects: where is its condition after "workspace_id = $1", args its arguments
// from $2 on, and the page must hold at least least records.
func samePage(t *testing.T, st *postgres.Store, ws core.ID, q core.ListQuery, where string, args []any, least int) {
	t.Helper()
	ctx := context.Background()
	got, err := st.Records(ctx, ws, q)
	if err != nil {
		t.Fatal(err)
	}
	dir := "DESC"
	if q.Asc {
		dir = "ASC"
	}
	rows, err := st.Pool().Query(ctx, `SELECT id FROM records WHERE workspace_id = $1 `+where+`
		ORDER BY created_at `+dir+`, id `+dir+` LIMIT `+strconv.Itoa(q.Limit), append([]any{ws}, args...)...)
	if err != nil {
		t.Fatal(err)
	}
	want, err := pgx.CollectRows(rows, pgx.RowTo[core.ID])
	if err != nil {
		t.Fatal(err)
	}
	ids := make([]core.ID, len(got))
	for i, r := range got {
		ids[i] = r.ID
	}
	if len(want) < least || !slices.Equal(ids, want) {
		t.Errorf("page %v, want %v", ids, want)
	}
}

// wantOrderedWalk fails t unless plan walks an index in the page's order (forward for an ascending page,
// else backward) and sorts the records' dates at most once, in the outer query, of the page's rows.
func wantOrderedWalk(t *testing.T, plan, forward, backward string, asc bool, what string) {
	t.Helper()
	walk := backward
	if asc {
		walk = forward
	}
	if !strings.Contains(plan, walk) || strings.Count(plan, "Sort Key: records.created_at") > 1 {
		t.Errorf("%s:\n%s", what, plan)
	}
}
