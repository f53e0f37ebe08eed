package postgres_test

import (
	"testing"
	"time"

	"github.com/feedbridge/feedbridge/core"
	"github.com/feedbridge/feedbridge/store/postgres"
)

// TestOneQueueMigration builds a schema at version 13, with insight jobs and webhook deliveries in their
// own tables, then opens the store: the migration after must carry the jobs still to do and the failed
// ones, and every delivery, onto the general queue as they were (done jobs stay behind), and the queue
// must then serve them.
func TestOneQueueMigration(t *testing.T) {
	o := olderSchema(t, func(v int, _ string) bool { return v > 13 })
	ctx, u, pool, exec := o.ctx, o.url, o.pool, o.exec
	ws, rec1, rec2, rec3 := string(core.NewID()), string(core.NewID()), string(core.NewID()), string(core.NewID())
	queued, running, failed, done := string(core.NewID()), string(core.NewID()), string(core.NewID()), string(core.NewID())
	exec(`INSERT INTO workspaces (id, name, plan, created_at) VALUES ($1, 'A', 'pro', now())`, ws)
	at := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	exec(`INSERT INTO insight_jobs (id, workspace_id, record_id, state, attempts, max_attempts, last_error, run_at,
			lease_until, leased_by, created_at, updated_at) VALUES
		($1, $5, $6, 'queued', 1, 5, 'timeout', $9, NULL, '', $9, $9),
		($2, $5, $7, 'running', 2, 5, '', $9, $9, 'old-worker', $9 + interval '1 ms', $9),
		($3, $5, $8, 'failed', 5, 5, 'gave up', $9, NULL, '', $9 + interval '2 ms', $9),
		($4, $5, $8, 'done', 1, 5, '', $9, NULL, '', $9 - interval '1 ms', $9)`,
		queued, running, failed, done, ws, rec1, rec2, rec3, at)
	d1, d2 := string(core.NewID()), string(core.NewID())
	exec(`INSERT INTO deliveries (id, workspace_id, entry, body, state, attempts, last_error, run_at, lease_until, leased_by,
			created_at, updated_at) VALUES ($1, $3, 'webhook:crm', '{"a":1}', 'queued', 0, '', $4, NULL, '', $4, $4),
		($2, $3, 'webhook:crm', '{"a":2}', 'failed', 3, 'bad body', $4, NULL, '', $4 + interval '1 ms', $4)`,
		d1, d2, ws, at)

	st, err := postgres.Open(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if n, err := st.InsightQueueDepth(ctx); err != nil || n != 2 {
		t.Fatalf("insight queue depth after the migration = %d, %v; want 2 (queued and running)", n, err)
	}
	fails, err := st.FailedInsightJobs(ctx, core.ID(ws))
	if err != nil || len(fails) != 1 || string(fails[0].ID) != failed || string(fails[0].RecordID) != rec3 ||
		fails[0].LastError != "gave up" || fails[0].Attempts != 5 {
		t.Fatalf("failed jobs after the migration: %+v, %v", fails, err)
	}
	jobs, err := st.ClaimInsightJobs(ctx, "w", 10, time.Minute)
	if err != nil || len(jobs) != 2 {
		t.Fatalf("claim after the migration: %+v, %v", jobs, err)
	}
	got := map[string]core.InsightJob{string(jobs[0].ID): jobs[0], string(jobs[1].ID): jobs[1]}
	if j := got[queued]; string(j.RecordID) != rec1 || j.Attempts != 2 || string(j.Workspace) != ws {
		t.Errorf("queued job after the migration: %+v", j)
	}
	if j := got[running]; string(j.RecordID) != rec2 || j.Attempts != 3 {
		t.Errorf("running job after the migration: %+v", j)
	}
	ds, err := st.Deliveries(ctx, core.ID(ws), "webhook:crm")
	if err != nil || len(ds) != 2 {
		t.Fatalf("deliveries after the migration: %+v, %v", ds, err)
	}
	if string(ds[0].ID) != d1 || string(ds[0].Body) != `{"a":1}` || ds[0].State != core.JobQueued || !ds[0].CreatedAt.Equal(at) {
		t.Errorf("queued delivery after the migration: %+v", ds[0])
	}
	if string(ds[1].ID) != d2 || ds[1].State != core.JobFailed || ds[1].LastError != "bad body" || ds[1].Attempts != 3 {
		t.Errorf("failed delivery after the migration: %+v", ds[1])
	}
	var n int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM pg_tables WHERE schemaname = current_schema()
		AND tablename IN ('insight_jobs', 'deliveries')`).Scan(&n); err != nil || n != 0 {
		t.Errorf("%d old tables still there after the migration (%v)", n, err)
	}
}
