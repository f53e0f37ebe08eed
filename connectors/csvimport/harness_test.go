package csvimport

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/sirupsen/logrus"
	"github.com/sirupsen/logrus/hooks/test"

	"github.com/feedbridge/feedbridge/core"
	"github.com/feedbridge/feedbridge/store/postgres"
	"github.com/feedbridge/feedbridge/store/postgres/pgtest"
	"github.com/feedbridge/feedbridge/store/sqlite"
)

// testEnv is a real store-backed service with one workspace, and a directory for files.
type testEnv struct {
	svc     *core.Service
	store   core.Store
	backend string // "sqlite" or "postgres"
	dsn     string // what openStore needs to open the same store again (another process)
	ws      core.ID
	dir     string
	log     *logrus.Entry
	hook    *test.Hook
}

// openStore opens a store of the named backend; dsn is a SQLite path or a PostgreSQL URL.
func openStore(ctx context.Context, backend, dsn string) (core.Store, error) {
	if backend == "postgres" {
		return postgres.Open(ctx, dsn)
	}
	return sqlite.Open(ctx, dsn)
}

// forEachBackend runs fn on SQLite, and on PostgreSQL when FEEDBRIDGE_TEST_POSTGRES_URL is set.
func forEachBackend(t *testing.T, fn func(t *testing.T, e *testEnv)) {
	t.Run("sqlite", func(t *testing.T) { fn(t, newTestEnvOn(t, "sqlite")) })
	t.Run("postgres", func(t *testing.T) { fn(t, newTestEnvOn(t, "postgres")) })
}

func newTestEnv(t testing.TB) *testEnv { return newTestEnvOn(t, "sqlite") }

func newTestEnvOn(t testing.TB, backend string) *testEnv {
	t.Helper()
	dir := t.TempDir()
	ctx := context.Background()
	dsn := filepath.Join(dir, "feedbridge.db")
	if backend == "postgres" {
		dsn = pgtest.URL(t) // skips the test when no server is configured
	}
	st, err := openStore(ctx, backend, dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	svc := core.NewService(st, core.Options{})
	w, err := svc.CreateWorkspace(ctx, "Acme", core.PlanPro, -1)
	if err != nil {
		t.Fatal(err)
	}
	logger, hook := test.NewNullLogger()
	return &testEnv{svc: svc, store: st, backend: backend, dsn: dsn, ws: w.ID, dir: dir, log: logrus.NewEntry(logger), hook: hook}
}

// write creates a file under the env's directory and returns its path.
func (e *testEnv) write(t testing.TB, name, content string) string {
	t.Helper()
	p := filepath.Join(e.dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// records lists every record of a type in the workspace, oldest first.
func (e *testEnv) records(t testing.TB, typ core.RecordType) []core.Record {
	t.Helper()
	var out []core.Record
	q := core.ListQuery{Type: typ, Asc: true, Limit: 1000}
	for {
		page, err := e.store.Records(context.Background(), e.ws, q)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, page...)
		if len(page) < q.Limit {
			return out
		}
		last := page[len(page)-1]
		q.After = &core.Cursor{CreatedAt: last.CreatedAt, ID: last.ID}
	}
}
