package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/url"

	"github.com/jackc/pgx/v5"
)

// trgmLockKey is the advisory lock the project's PostgreSQL tests take around CREATE EXTENSION pg_trgm;
// taking the same one keeps this command from colliding with a test run on the same server.
const trgmLockKey = "7380633512364210036"

// pgSchema creates a fresh schema on the server at base and returns a URL whose search_path puts it first
// (pg_trgm stays in public, which follows it), and a function that drops the schema with its tables.
func pgSchema(ctx context.Context, base, prefix string) (string, func(), error) {
	var b [5]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", nil, err
	}
	name := prefix + hex.EncodeToString(b[:])
	admin := func(stmts ...string) error {
		conn, err := pgx.Connect(ctx, singleConnURL(base))
		if err != nil {
			return fmt.Errorf("connect: %w", err)
		}
		defer conn.Close(context.Background())
		tx, err := conn.Begin(ctx)
		if err != nil {
			return err
		}
		defer tx.Rollback(context.Background()) //nolint:errcheck // after Commit it is a no-op
		for _, s := range stmts {
			if _, err := tx.Exec(ctx, s); err != nil {
				return fmt.Errorf("%s: %w", s, err)
			}
		}
		return tx.Commit(ctx)
	}
	if err := admin("SELECT pg_advisory_xact_lock("+trgmLockKey+")", "CREATE EXTENSION IF NOT EXISTS pg_trgm WITH SCHEMA public",
		"CREATE SCHEMA "+name); err != nil {
		return "", nil, fmt.Errorf("postgres schema: %w", err)
	}
	drop := func() { _ = admin("DROP SCHEMA IF EXISTS " + name + " CASCADE") }
	u, err := url.Parse(base)
	if err != nil {
		drop()
		return "", nil, fmt.Errorf("postgres url: %w", err)
	}
	q := u.Query()
	q.Set("search_path", name+",public")
	u.RawQuery = q.Encode()
	return u.String(), drop, nil
}

// singleConnURL drops pool settings that a single pgx connection refuses.
func singleConnURL(s string) string {
	u, err := url.Parse(s)
	if err != nil {
		return s
	}
	q := u.Query()
	for k := range q {
		if len(k) > 5 && k[:5] == "pool_" {
			q.Del(k)
		}
	}
	u.RawQuery = q.Encode()
	return u.String()
}
