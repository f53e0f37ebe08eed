package sqlite

import (
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/feedbridge/feedbridge/core"
)

// TestOptimizeReloadsStatistics: when optimize changes the planner's statistics it changes the schema's
// version, which makes the readers, open since before, read the new statistics; when it changes nothing,
// the version stays.
func TestOptimizeReloadsStatistics(t *testing.T) {
	ctx := t.Context()
	st, err := Open(ctx, filepath.Join(t.TempDir(), "optimize.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	version := func() int {
		var v int
		if err := st.w.QueryRowContext(ctx, `PRAGMA schema_version`).Scan(&v); err != nil {
			t.Fatal(err)
		}
		return v
	}
	ws := core.Workspace{ID: core.NewID(), Name: "optimize", Plan: core.PlanBusiness, CreatedAt: time.Now()}
	if err := st.CreateWorkspace(ctx, ws); err != nil {
		t.Fatal(err)
	}
	base := time.Now().Add(-time.Hour)
	for i := 0; i < 3000; i += 1000 {
		batch := make([]core.NewRecord, 0, 1000)
		for j := i; j < i+1000; j++ {
			at := base.Add(time.Duration(j) * time.Millisecond)
			batch = append(batch, core.NewRecord{ID: core.NewIDAt(at), Type: core.RecordFeedback, Title: fmt.Sprintf("r%d", j),
				Status: core.StatusTriage, Source: "API", CreatedAt: at, UpdatedAt: at})
		}
		if _, err := st.CreateRecords(ctx, ws.ID, batch); err != nil {
			t.Fatal(err)
		}
	}
	v := version()
	if err := st.write(ctx, "optimize", optimize); err != nil {
		t.Fatal(err)
	}
	grown := version()
	if grown == v {
		t.Errorf("statistics refreshed after 3,000 records: schema version %d, unchanged", v)
	}
	var stat string
	if err := st.w.QueryRowContext(ctx, `SELECT stat FROM sqlite_stat1 WHERE idx = 'records_listing'`).Scan(&stat); err != nil {
		t.Fatal("no statistics of the listing index:", err)
	}
	if err := st.write(ctx, "optimize", optimize); err != nil {
		t.Fatal(err)
	}
	if again := version(); again != grown {
		t.Errorf("nothing changed, yet the schema version went from %d to %d", grown, again)
	}
	var n int
	if err := st.w.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_schema WHERE name = 'stats_reload'`).Scan(&n); err != nil || n != 0 {
		t.Errorf("the scratch table left behind (%d, %v)", n, err)
	}
}

// TestFinishedImportRefreshesStatistics checks that an import that created records has the planner's
// statistics refreshed soon after it finishes, not at the next hourly run.
func TestFinishedImportRefreshesStatistics(t *testing.T) {
	ctx := t.Context()
	st, err := Open(ctx, filepath.Join(t.TempDir(), "import.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ws := core.Workspace{ID: core.NewID(), Name: "import", Plan: core.PlanBusiness, CreatedAt: time.Now()}
	if err := st.CreateWorkspace(ctx, ws); err != nil {
		t.Fatal(err)
	}
	stats := func() int {
		var n int
		if err := st.w.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_stat1 WHERE idx = 'records_listing'`).Scan(&n); err != nil {
			return 0 // no statistics table yet
		}
		return n
	}
	if stats() != 0 {
		t.Skip("the empty store already has statistics of the listing index")
	}
	run := core.ImportRun{ID: core.NewID(), Workspace: ws.ID, Connector: "csv", File: "a.csv", Status: "running", StartedAt: time.Now()}
	if err := st.PutImportRun(ctx, run); err != nil {
		t.Fatal(err)
	}
	base := time.Now().Add(-time.Hour)
	batch := make([]core.NewRecord, 0, 3000)
	for j := range 3000 {
		at := base.Add(time.Duration(j) * time.Millisecond)
		batch = append(batch, core.NewRecord{ID: core.NewIDAt(at), Type: core.RecordFeedback, Title: fmt.Sprintf("r%d", j),
			Status: core.StatusTriage, Source: "CSV", CreatedAt: at, UpdatedAt: at})
	}
	if _, err := st.CreateRecords(ctx, ws.ID, batch); err != nil {
		t.Fatal(err)
	}
	if stats() != 0 {
		t.Fatal("statistics appeared before the import finished")
	}
	run.Status, run.Rows, run.Created, run.FinishedAt = "succeeded", 3000, 3000, time.Now()
	if err := st.PutImportRun(ctx, run); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(10 * time.Second); stats() == 0; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("no statistics of the listing index 10 s after the import finished")
		}
	}
}
