package csvimport

import (
	"context"
	"testing"
	"time"

	"github.com/feedbridge/feedbridge/core"
)

// SweepAbandoned closes, in every workspace, the runs whose process no longer renews their lease, and
// leaves alone a run whose process is alive and the runs that have finished.
func TestSweepAbandoned(t *testing.T) {
	forEachBackend(t, func(t *testing.T, e *testEnv) {
		ctx := context.Background()
		other, err := e.svc.CreateWorkspace(ctx, "Other", core.PlanPro, -1)
		if err != nil {
			t.Fatal(err)
		}
		start := func(ws core.ID, file string) core.ImportRun {
			t.Helper()
			r, err := e.svc.StartImport(ctx, ws, ConnectorCLI, file)
			if err != nil {
				t.Fatal(err)
			}
			return r
		}
		// A killed CLI import in each workspace: running, with nobody renewing its lease.
		deadHere, deadThere := start(e.ws, "a.csv"), start(other.ID, "b.csv")
		// A live import: its process holds the lease.
		alive := start(other.ID, "c.csv")
		if ok, err := e.store.TryAcquire(ctx, runLeaseName(alive.ID), "live-process", time.Hour); err != nil || !ok {
			t.Fatalf("acquire the live run's lease: %v %v", ok, err)
		}
		finished := start(e.ws, "d.csv")
		finished.Status, finished.Rows = core.ImportSucceeded, 3
		if err := e.svc.FinishImport(ctx, finished); err != nil {
			t.Fatal(err)
		}

		sctx, cancel := context.WithCancel(ctx)
		done := make(chan struct{})
		go func() {
			defer close(done)
			SweepAbandoned(sctx, e.svc, 10*time.Millisecond, e.log)
		}()
		status := func(r core.ImportRun) core.ImportRun {
			t.Helper()
			got, err := e.svc.ImportRun(ctx, r.Workspace, r.ID)
			if err != nil {
				t.Fatal(err)
			}
			return got
		}
		deadline := time.Now().Add(10 * time.Second)
		for status(deadHere).Status == core.ImportRunning || status(deadThere).Status == core.ImportRunning {
			if time.Now().After(deadline) {
				t.Fatal("the abandoned runs are still running after 10 s of sweeping")
			}
			time.Sleep(10 * time.Millisecond)
		}
		cancel()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			t.Fatal("SweepAbandoned did not return after its context ended")
		}
		for _, r := range []core.ImportRun{deadHere, deadThere} {
			if got := status(r); got.Status != core.ImportFailed || got.Error != interruptedError || got.FinishedAt.IsZero() {
				t.Errorf("abandoned run %s: status %s, error %q, finished %v", r.File, got.Status, got.Error, got.FinishedAt)
			}
		}
		if got := status(alive); got.Status != core.ImportRunning {
			t.Errorf("the live run was closed: %s %q", got.Status, got.Error)
		}
		if got := status(finished); got.Status != core.ImportSucceeded || got.Rows != 3 {
			t.Errorf("the finished run changed: %s, %d rows", got.Status, got.Rows)
		}
		n := 0
		for _, en := range e.hook.AllEntries() {
			if en.Message == "csv: closed an import run whose process stopped" {
				n++
			}
		}
		if n != 2 {
			t.Errorf("%d log lines for closed runs, want 2", n)
		}
	})
}
