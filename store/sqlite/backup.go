package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
)

// Backup writes an online, consistent copy of the database to path (VACUUM INTO): readers and the writer
// keep working while it runs, and the copy is a complete database that Open accepts as it is. An existing
// file at path is refused rather than overwritten.
func (s *Store) Backup(ctx context.Context, path string) error {
	if _, err := os.Stat(path); err == nil {
		return fmt.Errorf("sqlite: backup: %s already exists", path)
	} else if !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("sqlite: backup: %w", err)
	}
	// A connection of its own: VACUUM INTO only reads this database (one snapshot), so it must not queue
	// behind the writer, and the readers are query-only, which VACUUM refuses.
	db, err := sql.Open("sqlite", dsn(s.path, s.busy, ""))
	if err != nil {
		return fmt.Errorf("sqlite: backup: %w", err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	_, err = db.ExecContext(ctx, `VACUUM INTO ?`, path)
	return s.fail("backup", err)
}
