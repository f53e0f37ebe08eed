package postgres

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"syscall"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/puddle/v2"

	"github.com/feedbridge/feedbridge/core"
)

// SQLSTATE codes the store reacts to.
const (
	codeUniqueViolation     = "23505"
	codeForeignKeyViolation = "23503"
	codeBadEncoding         = "22021" // character_not_in_repertoire: a NUL byte or invalid UTF-8
	codeUntranslatable      = "22P05"
)

// errBadText is what a value PostgreSQL cannot store as text becomes: SQLite keeps NUL bytes and invalid
// UTF-8 as given, PostgreSQL refuses them, and a client's bad bytes must be a 400, not a 500.
var errBadText = &core.ValidationError{Field: "text", Code: "invalid characters",
	Message: "Text fields must be valid UTF-8 without NUL characters."}

// fail gives an error its "postgres: op:" context and classifies it: a database that is down, restarting,
// out of connections or unreachable, and a closed pool, wrap core.ErrUnavailable (503, worth retrying); no
// row is core.ErrNotFound; a foreign key that points nowhere means the workspace is absent (ErrNotFound); a
// unique violation that reaches here is core.ErrConflict; text PostgreSQL cannot store is a
// *core.ValidationError. Domain errors pass through with context only.
func fail(op string, err error) error {
	if err == nil {
		return nil
	}
	var pe *pgconn.PgError
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return fmt.Errorf("postgres: %s: %w", op, core.ErrNotFound)
	case unavailable(err):
		return fmt.Errorf("postgres: %s: %w: %w", op, core.ErrUnavailable, err)
	case errors.As(err, &pe) && pe.Code == codeForeignKeyViolation:
		return fmt.Errorf("postgres: %s: %w", op, core.ErrNotFound)
	case errors.As(err, &pe) && pe.Code == codeUniqueViolation:
		return fmt.Errorf("postgres: %s: %w", op, core.ErrConflict)
	case errors.As(err, &pe) && (pe.Code == codeBadEncoding || pe.Code == codeUntranslatable):
		return fmt.Errorf("postgres: %s: %w", op, errBadText)
	}
	return fmt.Errorf("postgres: %s: %w", op, err)
}

// unavailable reports whether err means the database cannot serve right now rather than that the request
// was wrong: connection failures, a server shutting down or starting up, too many connections,
// serialization failures and deadlocks, and a pool that was closed.
func unavailable(err error) bool {
	if errors.Is(err, context.Canceled) {
		return false // the caller gave up; not the database's fault
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		switch pe.Code[:2] {
		case "08", "53", "57", "58", "40": // connection, resources, operator intervention, system, rollback
			return pe.Code != "57014" // query_canceled is the caller's cancellation
		}
		return false
	}
	var (
		ce *pgconn.ConnectError
		ne net.Error
	)
	switch {
	case errors.As(err, &ce), errors.As(err, &ne),
		errors.Is(err, puddle.ErrClosedPool), errors.Is(err, pgconn.ErrConnClosed),
		errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF),
		errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE),
		errors.Is(err, context.DeadlineExceeded), pgconn.Timeout(err), pgconn.SafeToRetry(err):
		return true
	}
	return false
}
