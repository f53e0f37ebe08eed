package postgres

import (
	"context"
	"embed"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/feedbridge/feedbridge/store/migration"
)

// The schema's migrations (see package migration).
//
//go:embed migrations/*.sql
var migrationFiles embed.FS

// migrationLock is the pg_advisory_lock key every replica takes while migrating ("fbmigrat" in ASCII), so
// that replicas starting together apply each migration once.
const migrationLock int64 = 0x66626d6967726174

// migrations are the embedded files in version order.
func migrations() ([]migration.Migration, error) { return migration.Load(migrationFiles, "migrations") }

// latestVersion is the schema version this binary needs.
func latestVersion() int { return migration.Latest(migrations()) }

// migrate applies every pending migration, each in its own transaction, while holding the session-level
// migration lock on one connection. A replica that waits for the lock then finds the versions applied.
// The version is read first: with nothing pending (every start but the first after an upgrade) no lock is
// taken at all.
func (s *Store) migrate(ctx context.Context) error {
	ms, err := migrations()
	if err != nil {
		return fmt.Errorf("postgres: migrate: %w", err)
	}
	if v, err := s.schemaVersion(ctx); err == nil && v >= migration.Latest(ms, nil) {
		return nil
	}
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		return fail("migrate", err)
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, `SELECT pg_advisory_lock($1)`, migrationLock); err != nil {
		return fail("migrate: lock", err)
	}
	// If the unlock fails the connection is broken, and the lock ended with its session anyway.
	defer conn.Exec(context.WithoutCancel(ctx), `SELECT pg_advisory_unlock($1)`, migrationLock)
	if _, err := conn.Exec(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
		version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`); err != nil {
		return fail("migrate", err)
	}
	for _, m := range ms {
		err := pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
			var done bool
			if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM schema_migrations WHERE version = $1)`, m.Version).Scan(&done); err != nil || done {
				return err
			}
			if _, err := tx.Exec(ctx, m.SQL); err != nil {
				return err
			}
			_, err := tx.Exec(ctx, `INSERT INTO schema_migrations (version, name) VALUES ($1, $2)`, m.Version, m.Name)
			return err
		})
		if err != nil {
			return fail("migrate "+m.Name, err)
		}
	}
	return nil
}

// schemaVersion is the highest applied migration.
func (s *Store) schemaVersion(ctx context.Context) (int, error) {
	var v *int
	err := s.pool.QueryRow(ctx, `SELECT max(version) FROM schema_migrations`).Scan(&v)
	if v == nil {
		return 0, err
	}
	return *v, err
}
