package postgres_test

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/feedbridge/feedbridge/store/postgres/pgtest"
)

// older is a test database holding the schema an older binary left, with a context that ends with the test
// (or after a minute), a pool on it and an exec that fails the test on an error.
type older struct {
	ctx  context.Context
	url  string
	pool *pgxpool.Pool
	exec func(q string, args ...any)
}

// olderSchema builds, in a fresh test database, the schema an older binary left: the migrations in order,
// each recorded as applied, up to the first one for which stop is true (that one and the later ones are left
// for the store to apply).
func olderSchema(t *testing.T, stop func(version int, name string) bool) older {
	t.Helper()
	u := pgtest.URL(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	pool, err := pgxpool.New(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	exec := func(q string, args ...any) {
		t.Helper()
		if _, err := pool.Exec(ctx, q, args...); err != nil {
			t.Fatalf("%.60s: %v", q, err)
		}
	}
	exec(`CREATE TABLE schema_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`)
	files, err := filepath.Glob(filepath.Join("migrations", "*.sql"))
	if err != nil {
		t.Fatal(err)
	}
	sort.Slice(files, func(i, j int) bool { return version(t, files[i]) < version(t, files[j]) })
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".sql")
		v := version(t, f)
		if stop(v, name) {
			break
		}
		sql, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		exec(string(sql))
		exec(`INSERT INTO schema_migrations (version, name) VALUES ($1, $2)`, v, name)
	}
	return older{ctx: ctx, url: u, pool: pool, exec: exec}
}

// version is the number a migration file's name starts with.
func version(t *testing.T, file string) int {
	t.Helper()
	name := filepath.Base(file)
	v, err := strconv.Atoi(name[:strings.IndexByte(name, '_')])
	if err != nil {
		t.Fatal(err)
	}
	return v
}
