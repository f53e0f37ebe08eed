package sqlite

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/feedbridge/feedbridge/core"
)

// Mode is how a process uses the store. The daemon owns the background work; a command run next to it
// (the CLI) must neither compete for the write lock when it has nothing to write nor take over that work.
type Mode int

const (
	// ModeDaemon migrates, and indexes, checkpoints and refreshes statistics in the background.
	ModeDaemon Mode = iota
	// ModeCommand writes now and then: it migrates only when a migration is pending (reading the
	// schema version first, without the write lock) and leaves the background work to the daemon.
	ModeCommand
	// ModeReadOnly never writes: every connection is read-only, and a schema that is not current is
	// refused instead of migrated.
	ModeReadOnly
)

// commandBusyTimeout is how long a command's write waits for the write lock. The daemon yields to it
// between its transactions (turn.go), so the wait is normally one transaction long; the margin covers a
// daemon busy with a large migration or drain.
const commandBusyTimeout = 30 * time.Second

// OpenMode opens the store at path for a process of the given kind; Open is OpenMode(ModeDaemon).
// ModeReadOnly refuses a file that does not exist (errors.Is(err, os.ErrNotExist)).
func OpenMode(ctx context.Context, path string, mode Mode) (*Store, error) {
	busy := busyTimeout
	if mode != ModeDaemon {
		busy = commandBusyTimeout
	}
	return open(ctx, path, busy, mode)
}

// writerDSN is the writer connection's extra parameters.
func (m Mode) writerDSN() string {
	switch m {
	case ModeReadOnly:
		return "&mode=ro&_pragma=query_only(1)"
	case ModeCommand:
		// No automatic checkpoint: one commit of a command must not pay for copying the daemon's log.
		return "&_txlock=immediate&_pragma=wal_autocheckpoint(0)"
	}
	return "&_txlock=immediate&_pragma=mmap_size(" + strconv.Itoa(writerMapBytes) + ")&_pragma=wal_autocheckpoint(4000)"
}

// readerDSN is the read pools' extra parameters.
func (m Mode) readerDSN() string {
	if m == ModeReadOnly {
		return "&mode=ro"
	}
	return ""
}

// prepareFile makes sure the database file exists before SQLite opens it: its folder is created (0700)
// when missing, and a new file is created 0600, since it holds customers' data; SQLite gives its -wal
// and -shm files the database file's mode.
func prepareFile(path string, mode Mode) error {
	if mode == ModeReadOnly {
		if _, err := os.Stat(path); err != nil {
			return fmt.Errorf("sqlite store %s: %w", path, err)
		}
		return nil
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("cannot create the folder %s for the SQLite store: %w (create it, or set store.url to a writable place)", dir, unwrapPath(err))
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	switch {
	case err == nil:
		return f.Close()
	case errors.Is(err, os.ErrExist):
		return nil
	}
	return fmt.Errorf("cannot create the SQLite store %s: %w (check that this user may write the folder %s, or set store.url)", path, unwrapPath(err), dir)
}

// unwrapPath drops the *PathError's own copy of the path, which the messages above already name.
func unwrapPath(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// openError names the file in an error met while opening it, and what to do when SQLite could not use it.
func openError(path string, err error) error {
	msg := err.Error()
	if strings.Contains(msg, "unable to open") || strings.Contains(msg, "readonly") || strings.Contains(msg, "permission denied") || strings.Contains(msg, "disk I/O") {
		return fmt.Errorf("sqlite store %s: %w (check that the file and its folder exist and this user may read and write them, or set store.url)", path, err)
	}
	return fmt.Errorf("sqlite store %s: %w", path, err)
}

// ensureSchema is the migration check of a command: the schema version is read without any lock, and
// only a pending migration takes the write lock. A read-only store refuses a schema that is not current.
func (s *Store) ensureSchema(ctx context.Context) error {
	v, err := s.appliedVersion(ctx)
	if err != nil {
		return s.fail("schema version", err)
	}
	want := latestVersion()
	switch {
	case v >= want:
		return nil
	case s.role == ModeReadOnly:
		return fmt.Errorf("schema version %d, this binary needs %d (run feedbridge migrate): %w", v, want, core.ErrUnavailable)
	}
	return s.migrate(ctx)
}

// appliedVersion is the highest applied migration, 0 for a database that has none yet.
func (s *Store) appliedVersion(ctx context.Context) (int, error) {
	var n int
	if err := s.w.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = 'schema_migrations'`).Scan(&n); err != nil || n == 0 {
		return 0, err
	}
	return s.schemaVersion(ctx, s.w)
}
