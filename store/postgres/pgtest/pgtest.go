// Package pgtest gives tests a real, throwaway PostgreSQL database each: created on the server named by
// FEEDBRIDGE_TEST_POSTGRES_URL, dropped when the test ends, so tests run in parallel and leave nothing
// behind. Without the variable the test is skipped with a message saying how to run it.
package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"os"
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

// URL creates a fresh, empty database and returns its URL; the database is dropped (connections and all)
// when the test ends. Its pool is kept small unless the server URL sets pool_max_conns, since many tests
// share one server's connection limit.
func URL(t testing.TB) string {
	t.Helper()
	base := ServerURL(t)
	var b [6]byte
	if _, err := rand.Read(b[:]); err != nil {
		t.Fatal(err)
	}
	name := "fb_test_" + hex.EncodeToString(b[:])
	admin(t, base, "CREATE DATABASE "+name)
	t.Cleanup(func() { admin(t, base, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)") })
	u, err := url.Parse(base)
	if err != nil {
		t.Fatalf("pgtest: %s is not a URL", EnvURL)
	}
	u.Path = "/" + name
	q := u.Query()
	if q.Get("pool_max_conns") == "" {
		q.Set("pool_max_conns", "6")
	}
	u.RawQuery = q.Encode()
	return u.String()
}

// Open returns a store on a fresh database, closed when the test ends (before the database is dropped).
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

// admin runs one statement on the server's own database, outside any transaction (CREATE DATABASE needs
// that).
func admin(t testing.TB, base, sql string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	conn, err := pgx.Connect(ctx, base)
	if err != nil {
		t.Fatalf("pgtest: connect to %s: %v", EnvURL, err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, sql); err != nil {
		t.Fatalf("pgtest: %s: %v", sql, err)
	}
}
