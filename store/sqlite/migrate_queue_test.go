package sqlite

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/feedbridge/feedbridge/core"
)

// TestOneQueueMigration builds a database at schema version 14, with insight jobs and webhook deliveries
// in their own tables, then opens it: the migration after must carry the jobs still to do and the failed
// ones, and every delivery, onto the general queue as they were (done jobs are history and stay behind),
// and the queue must then serve them.
func TestOneQueueMigration(t *testing.T) {
	path := filepath.Join(t.TempDir(), "old.db")
	db, exec := oldDatabase(t, path, 15)
	ws, rec1, rec2, rec3 := core.NewID(), core.NewID(), core.NewID(), core.NewID()
	queued, running, failed, done := core.NewID(), core.NewID(), core.NewID(), core.NewID()
	exec(`INSERT INTO workspaces(id, name, plan, created_at, num) VALUES (?, 'A', 'pro', 0, 1)`, ws)
	for i, id := range []core.ID{rec1, rec2, rec3} {
		exec(`INSERT INTO records(seq, id, workspace_id, type, title, search_text, status, source, created_at, updated_at)
			VALUES (?, ?, ?, 'Feedback', 't', 't', 'Triage', 'API', 0, 0)`, 1<<48|int64(i), id, ws)
	}
	exec(`INSERT INTO records_fts_pending(seq) SELECT seq FROM records`) // as every write queues its records
	at := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC).UnixMilli()
	exec(`INSERT INTO insight_jobs(id, workspace_id, record_id, state, attempts, max_attempts, last_error, run_at,
			lease_until, leased_by, created_at, updated_at) VALUES
		(?, ?, ?, 'queued', 1, 5, 'timeout', ?, NULL, '', ?, ?),
		(?, ?, ?, 'running', 2, 5, '', ?, ?, 'old-worker', ?, ?),
		(?, ?, ?, 'failed', 5, 5, 'gave up', ?, NULL, '', ?, ?),
		(?, ?, ?, 'done', 1, 5, '', ?, NULL, '', ?, ?)`,
		queued, ws, rec1, at, at, at,
		running, ws, rec2, at, at+1000, at+1, at+1,
		failed, ws, rec3, at, at+2, at+2,
		done, ws, rec3, at, at-1, at-1)
	d1, d2 := core.NewID(), core.NewID()
	exec(`INSERT INTO deliveries(id, workspace_id, entry, body, state, attempts, last_error, run_at, lease_until, leased_by,
			created_at, updated_at) VALUES (?, ?, 'webhook:crm', '{"a":1}', 'queued', 0, '', ?, NULL, '', ?, ?),
		(?, ?, 'webhook:crm', '{"a":2}', 'failed', 3, 'bad body', ?, NULL, '', ?, ?)`,
		d1, ws, at, at, at, d2, ws, at, at+1, at+1)
	db.Close()

	st := openT(t, path)
	ctx := t.Context()
	if n, err := st.InsightQueueDepth(ctx); err != nil || n != 2 {
		t.Fatalf("insight queue depth after the migration = %d, %v; want 2 (queued and running)", n, err)
	}
	fails, err := st.FailedInsightJobs(ctx, ws)
	if err != nil || len(fails) != 1 || fails[0].ID != failed || fails[0].RecordID != rec3 ||
		fails[0].LastError != "gave up" || fails[0].Attempts != 5 {
		t.Fatalf("failed jobs after the migration: %+v, %v", fails, err)
	}
	// The queued job is due, the running one's lease ran out long ago: both are claimed, the expired
	// lease first, each with its record and its attempts counted on.
	jobs, err := st.ClaimInsightJobs(ctx, "w", 10, time.Minute)
	if err != nil || len(jobs) != 2 {
		t.Fatalf("claim after the migration: %+v, %v", jobs, err)
	}
	got := map[core.ID]core.InsightJob{jobs[0].ID: jobs[0], jobs[1].ID: jobs[1]}
	if j := got[queued]; j.RecordID != rec1 || j.Attempts != 2 || j.Workspace != ws {
		t.Errorf("queued job after the migration: %+v", j)
	}
	if j := got[running]; j.RecordID != rec2 || j.Attempts != 3 {
		t.Errorf("running job after the migration: %+v", j)
	}
	ds, err := st.Deliveries(ctx, ws, "webhook:crm")
	if err != nil || len(ds) != 2 {
		t.Fatalf("deliveries after the migration: %+v, %v", ds, err)
	}
	if ds[0].ID != d1 || string(ds[0].Body) != `{"a":1}` || ds[0].State != core.JobQueued || !ds[0].CreatedAt.Equal(time.UnixMilli(at).UTC()) {
		t.Errorf("queued delivery after the migration: %+v", ds[0])
	}
	if ds[1].ID != d2 || ds[1].State != core.JobFailed || ds[1].LastError != "bad body" || ds[1].Attempts != 3 {
		t.Errorf("failed delivery after the migration: %+v", ds[1])
	}
	if claimed, err := st.ClaimDeliveries(ctx, "webhook:crm", "w", 10, time.Minute); err != nil || len(claimed) != 1 || claimed[0].ID != d1 {
		t.Errorf("delivery claim after the migration: %+v, %v", claimed, err)
	}
	for _, table := range []string{"insight_jobs", "deliveries"} {
		var n int
		if err := st.rq.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_master WHERE name = ?`, table).Scan(&n); err != nil || n != 0 {
			t.Errorf("table %s still there after the migration (%d, %v)", table, n, err)
		}
	}
}
