package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"

	sqlite "modernc.org/sqlite"
)

// Backup writes an online, consistent copy of the database to path: SQLite's online backup copies every
// page of one snapshot while readers and writers, in this process or another, keep working. The copy is a
// complete database that Open accepts as it is. An existing file at path is refused rather than
// overwritten. The copy holds every workspace's data: it is created readable by the owner only, whatever
// the umask.
//
// Copying pages rather than rows (VACUUM INTO) takes much less time and CPU on a large store: the
// indexes and the full-text index are copied, not built again.
func (s *Store) Backup(ctx context.Context, path string) (err error) {
	// The copy goes into an empty file that keeps its mode; creating it here, exclusively and without
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
			os.Remove(path + "-journal")
		}
	}()
	// A connection of its own: the copy only reads this database (one snapshot), so it must not queue
	// behind the writer. It reads the file mapped, not a system call per page.
	db, err := sql.Open("sqlite", dsn(s.path, s.busy, "&_pragma=mmap_size(8589934592)"))
	if err != nil {
		return fmt.Errorf("sqlite: backup: %w", err)
	}
	defer db.Close()
	conn, err := db.Conn(ctx)
	if err != nil {
		return s.fail("backup", err)
	}
	defer conn.Close()
	err = conn.Raw(func(dc any) error {
		src, ok := dc.(pageCopier)
		if !ok {
			return errors.New("the SQLite driver cannot copy pages")
		}
		// The destination is a new file written once: no rollback journal and no syncs while it is
		// written (a copy that fails is removed, never used), one fsync when it is complete. It becomes a
		// WAL database like its source when it is opened.
		b, err := src.NewBackup("file:" + (&url.URL{Path: path}).EscapedPath() + "?_pragma=journal_mode(OFF)&_pragma=synchronous(OFF)")
		if err != nil {
			return err
		}
		// All pages in one step: one read transaction, so one snapshot however the store changes meanwhile.
		_, stepErr := b.Step(-1)
		return errors.Join(stepErr, b.Finish())
	})
	if err == nil {
		err = syncFile(path)
	}
	return s.fail("backup", err)
}

// syncFile flushes the file at path to stable storage.
func syncFile(path string) error {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	return errors.Join(f.Sync(), f.Close())
}

// pageCopier is the driver connection's online backup.
type pageCopier interface {
	NewBackup(dstURI string) (*sqlite.Backup, error)
}
