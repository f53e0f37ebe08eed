package sqlite

import (
	"context"
	"database/sql"
	"embed"
	"fmt"

	"github.com/feedbridge/feedbridge/store/migration"
)

// The schema's migrations (see package migration).
//
//go:embed migrations/*.sql
var migrationFiles embed.FS

// migrations are the embedded files in version order.
func migrations() ([]migration.Migration, error) { return migration.Load(migrationFiles, "migrations") }

// latestVersion is the schema version this binary needs.
func latestVersion() int { return migration.Latest(migrations()) }

// migrate applies every pending migration, each in its own write transaction. Under BEGIN IMMEDIATE a second
// process migrating the same file at the same moment waits, then finds the version applied and skips it.
// The version is read first, without a lock: with nothing pending no write transaction is started, so a
// process opening the store never waits for (or holds up) another's writes.
func (s *Store) migrate(ctx context.Context) error {
	ms, err := migrations()
	if err != nil {
		return fmt.Errorf("sqlite: migrate: %w", err)
	}
	if v, err := s.appliedVersion(ctx); err == nil && v >= migration.Latest(ms, nil) {
		return nil
	}
	if err := s.write(ctx, "migrate", func(tx *wtx) error {
		_, err := tx.raw.ExecContext(tx.ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
			version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL)`)
		return err
	}); err != nil {
		return err
	}
	for _, m := range ms {
		err := s.write(ctx, "migrate "+m.Name, func(tx *wtx) error {
			var n int
			if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM schema_migrations WHERE version = ?`, m.Version).Scan(&n); err != nil || n > 0 {
				return err
			}
			if _, err := tx.raw.ExecContext(tx.ctx, m.SQL); err != nil { // several statements: never prepared
				return err
			}
			_, err := tx.ExecContext(ctx, `INSERT INTO schema_migrations(version, name, applied_at) VALUES (?, ?, ?)`,
				m.Version, m.Name, s.nowMS())
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
