package postgres_test

import (
	"context"
	"testing"
	"time"

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
