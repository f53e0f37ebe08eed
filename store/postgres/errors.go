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
)

// fail gives an error its "postgres: op:" context and classifies it: a database that is down, restarting,
// out of connections or unreachable, and a closed pool, wrap core.ErrUnavailable (503, worth retrying); no
// row is core.ErrNotFound; a foreign key that points nowhere means the workspace is absent (ErrNotFound); a
// unique violation that reaches here is core.ErrConflict. Domain errors pass through with context only.
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

// isUnique reports a unique violation, the signal of a lost insert race.
func isUnique(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && pe.Code == codeUniqueViolation
}
