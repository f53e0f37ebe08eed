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
// file at path is refused rather than overwritten. The copy holds every workspace's data: it is created
// readable by the owner only, whatever the umask.
func (s *Store) Backup(ctx context.Context, path string) (err error) {
	// VACUUM INTO writes into an empty file and keeps its mode; creating it here, exclusively and without
	// following a link, also closes the gap between the existence check and the write.
	f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if errors.Is(err, os.ErrExist) {
		return fmt.Errorf("sqlite: backup: %s already exists", path)
	}
	if err != nil {
		return fmt.Errorf("sqlite: backup: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("sqlite: backup: %w", err)
	}
	defer func() {
		if err != nil {
			os.Remove(path)
		}
	}()
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
