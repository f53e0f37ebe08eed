package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"time"
)

// SchemaStatus returns the schema version of the file at path (0 for one never migrated) and the one this
// binary needs, through one read-only connection: it changes nothing, for `config check`.
func SchemaStatus(ctx context.Context, path string) (have, want int, err error) {
	db, err := sql.Open("sqlite", dsn(path, 5*time.Second, ModeReadOnly.writerDSN()))
	if err != nil {
		return 0, 0, openError(path, err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	var n int
	if err := db.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = 'schema_migrations'`).Scan(&n); err != nil {
		return 0, 0, openError(path, err)
	}
	if n > 0 {
		var v sql.NullInt64
		if err := db.QueryRowContext(ctx, `SELECT max(version) FROM schema_migrations`).Scan(&v); err != nil {
			return 0, 0, fmt.Errorf("sqlite store %s: schema version: %w", path, err)
		}
		have = int(v.Int64)
	}
	return have, latestVersion(), nil
}
