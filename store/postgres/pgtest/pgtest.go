// Package pgtest gives tests a real, throwaway PostgreSQL store each: a fresh schema on the server named by
// FEEDBRIDGE_TEST_POSTGRES_URL, dropped when the test ends, so tests run in parallel and leave no tables
// behind. Without the variable the test is skipped with a message saying how to run it.
package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/url"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/feedbridge/feedbridge/store/postgres"
)

// EnvURL names the server tests run against, e.g. postgres://postgres@127.0.0.1:5432/test?sslmode=disable.
const EnvURL = "FEEDBRIDGE_TEST_POSTGRES_URL"

// ServerURL returns the configured server's URL, skipping the test when none is configured.
func ServerURL(t testing.TB) string {
	t.Helper()
	base := os.Getenv(EnvURL)
	if base == "" {
		t.Skip(EnvURL + " is not set; run .ci/postgres.sh (or point it at a PostgreSQL server) to run PostgreSQL tests")
	}
	return base
}

// URL creates a fresh, empty schema and returns a URL whose search_path puts it first; the schema is
// dropped with everything in it when the test ends. A schema rather than a database per test keeps a
// test's setup to a few milliseconds (CREATE DATABASE costs about a second on a durable server). The
// pg_trgm extension is database-wide, so it is installed once into public, which follows the test's schema
// on the search_path. The pool is kept small unless the server URL sets pool_max_conns, since many tests
// share one server's connection limit.
func URL(t testing.TB) string {
	t.Helper()
	base := ServerURL(t)
	var b [6]byte
	if _, err := rand.Read(b[:]); err != nil {
		t.Fatal(err)
	}
	// The creation time in the name lets a later test sweep what a killed test process left behind.
	name := fmt.Sprintf("%s%d_%s", prefix, time.Now().Unix(), hex.EncodeToString(b[:]))
	if err := admin(base, func(ctx context.Context, tx pgx.Tx) error {
		for _, sql := range []string{
			"SELECT pg_advisory_xact_lock(" + trgmLock + ")",
			"CREATE EXTENSION IF NOT EXISTS pg_trgm WITH SCHEMA public",
			"CREATE SCHEMA " + name,
		} {
			if _, err := tx.Exec(ctx, sql); err != nil {
				return fmt.Errorf("%s: %w", sql, err)
			}
		}
		return sweep(ctx, tx)
	}); err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	t.Cleanup(func() {
		if err := admin(base, func(ctx context.Context, tx pgx.Tx) error {
			_, err := tx.Exec(ctx, "DROP SCHEMA IF EXISTS "+name+" CASCADE")
			return err
		}); err != nil {
			t.Errorf("pgtest: drop schema %s: %v", name, err)
		}
	})
	u, err := url.Parse(base)
	if err != nil {
		t.Fatalf("pgtest: %s is not a URL", EnvURL)
	}
	q := u.Query()
	q.Set("search_path", name+",public")
	if q.Get("pool_max_conns") == "" {
		q.Set("pool_max_conns", "6")
	}
	u.RawQuery = q.Encode()
	return u.String()
}

// trgmLock serialises installing pg_trgm: two test processes doing it at once would otherwise collide.
const trgmLock = "7380633512364210036"

// prefix starts every test schema's name: fb_test_<unix seconds>_<random>.
const prefix = "fb_test_"

// staleAfter is the age after which a test schema is taken to be left over by a killed test process.
const staleAfter = 6 * time.Hour

// sweep drops test schemas older than staleAfter.
func sweep(ctx context.Context, tx pgx.Tx) error {
	rows, err := tx.Query(ctx, `SELECT nspname FROM pg_namespace WHERE nspname LIKE 'fb\_test\_%'`)
	if err != nil {
		return err
	}
	names, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return err
	}
	for _, n := range names {
		secs, _, ok := strings.Cut(strings.TrimPrefix(n, prefix), "_")
		created, err := strconv.ParseInt(secs, 10, 64)
		if !ok || err != nil || time.Since(time.Unix(created, 0)) < staleAfter {
			continue
		}
		if _, err := tx.Exec(ctx, "DROP SCHEMA IF EXISTS "+pgx.Identifier{n}.Sanitize()+" CASCADE"); err != nil {
			return err
		}
	}
	return nil
}

// Open returns a store on a fresh schema, closed when the test ends (before the schema is dropped).
func Open(t testing.TB) *postgres.Store {
	t.Helper()
	u := URL(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	s, err := postgres.Open(ctx, u)
	if err != nil {
		t.Fatalf("pgtest: open store: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// admin runs fn in one transaction on the server's own database.
func admin(base string, fn func(ctx context.Context, tx pgx.Tx) error) error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	conn, err := pgx.Connect(ctx, base)
	if err != nil {
		return fmt.Errorf("connect to %s: %w", EnvURL, err)
	}
	defer conn.Close(ctx)
	return pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error { return fn(ctx, tx) })
}
