package sqlite

import (
	"context"
	"database/sql"
	"embed"
	"fmt"
	"io/fs"
	"sort"
	"strconv"
	"strings"
)

// Migrations are append-only: a released file never changes, a schema change is a new, higher number.
//
//go:embed migrations/*.sql
var migrationFiles embed.FS

type migration struct {
	version int
	name    string
	sql     string
}

// migrations reads the embedded files, named NNNN_description.sql, in version order.
func migrations() ([]migration, error) {
	entries, err := fs.ReadDir(migrationFiles, "migrations")
	if err != nil {
		return nil, err
	}
	var out []migration
	for _, e := range entries {
		num, _, ok := strings.Cut(e.Name(), "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil || v <= 0 {
			return nil, fmt.Errorf("migration %s: name must start with a positive number and '_'", e.Name())
		}
		b, err := migrationFiles.ReadFile("migrations/" + e.Name())
		if err != nil {
			return nil, err
		}
		out = append(out, migration{version: v, name: e.Name(), sql: string(b)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].version < out[j].version })
	for i, m := range out {
		if m.version != i+1 {
			return nil, fmt.Errorf("migration %s: expected version %d (no gaps, no repeats)", m.name, i+1)
		}
	}
	return out, nil
}

// latestVersion is the schema version this binary needs.
func latestVersion() int {
	ms, err := migrations()
	if err != nil || len(ms) == 0 {
		return -1
	}
	return ms[len(ms)-1].version
}

// migrate applies every pending migration, each in its own write transaction. Under BEGIN IMMEDIATE a second
// process migrating the same file at the same moment waits, then finds the version applied and skips it.
func (s *Store) migrate(ctx context.Context) error {
	ms, err := migrations()
	if err != nil {
		return fmt.Errorf("sqlite: migrate: %w", err)
	}
	if err := s.write(ctx, "migrate", func(tx *wtx) error {
		_, err := tx.raw.ExecContext(tx.ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
			version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL)`)
		return err
	}); err != nil {
		return err
	}
	for _, m := range ms {
		err := s.write(ctx, "migrate "+m.name, func(tx *wtx) error {
			var n int
			if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM schema_migrations WHERE version = ?`, m.version).Scan(&n); err != nil || n > 0 {
				return err
			}
			if _, err := tx.raw.ExecContext(tx.ctx, m.sql); err != nil { // several statements: never prepared
				return err
			}
			_, err := tx.ExecContext(ctx, `INSERT INTO schema_migrations(version, name, applied_at) VALUES (?, ?, ?)`,
				m.version, m.name, s.nowMS())
			return err
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// schemaVersion is the highest applied migration; a database newer than the binary reports its own number
// so that Ping refuses to serve it.
func (s *Store) schemaVersion(ctx context.Context, db queryer) (int, error) {
	var v sql.NullInt64
	err := db.QueryRowContext(ctx, `SELECT max(version) FROM schema_migrations`).Scan(&v)
	return int(v.Int64), err
}
