package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/feedbridge/feedbridge/core"
	sqlite "modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// fail gives an error its "sqlite: op:" context and classifies it: a busy, locked, unreadable or closed
// database wraps core.ErrUnavailable (worth retrying, 503), a missing row is core.ErrNotFound, a foreign
// key that points nowhere means the workspace (or another referenced row) is absent, and a unique
// violation is core.ErrConflict. Domain errors (validation, idea limit) pass through with context only.
func (s *Store) fail(op string, err error) error {
	if err == nil {
		return nil
	}
	var se *sqlite.Error
	switch {
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return fmt.Errorf("sqlite: %s: %w", op, err)
	case errors.Is(err, sql.ErrNoRows):
		return fmt.Errorf("sqlite: %s: %w", op, core.ErrNotFound)
	case errors.Is(err, sql.ErrConnDone), err.Error() == "sql: database is closed":
		return fmt.Errorf("sqlite: %s: %w: %w", op, core.ErrUnavailable, err)
	case errors.As(err, &se):
		switch code := se.Code(); {
		case code == sqlite3.SQLITE_CONSTRAINT_FOREIGNKEY:
			return fmt.Errorf("sqlite: %s: %w", op, core.ErrNotFound)
		case code == sqlite3.SQLITE_CONSTRAINT_UNIQUE, code == sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY:
			return fmt.Errorf("sqlite: %s: %w", op, core.ErrConflict)
		case unavailable(code & 0xff):
			return fmt.Errorf("sqlite: %s: %w: %w", op, core.ErrUnavailable, err)
		}
	}
	return fmt.Errorf("sqlite: %s: %w", op, err)
}

// isBusy reports whether err is SQLite's answer that another connection holds the lock.
func isBusy(err error) bool {
	var se *sqlite.Error
	return errors.As(err, &se) && se.Code()&0xff == sqlite3.SQLITE_BUSY
}

// unavailable lists the primary result codes that mean the database cannot serve right now rather than
// that the request was wrong.
func unavailable(primary int) bool {
	switch primary {
	case sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED, sqlite3.SQLITE_IOERR, sqlite3.SQLITE_CANTOPEN,
		sqlite3.SQLITE_FULL, sqlite3.SQLITE_NOMEM, sqlite3.SQLITE_READONLY, sqlite3.SQLITE_PROTOCOL:
		return true
	}
	return false
}
