package postgres

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

const (
	codeSerialization = "40001" // serialization_failure
	codeDeadlock      = "40P01" // deadlock_detected

	// txRetries is how many more times a transaction runs after PostgreSQL ended it as a deadlock victim or
	// a serialization failure; the other side of such a conflict has usually finished by the next attempt.
	txRetries = 3
	// txBackoff is the first pause before a retry; each later one doubles, jittered so that the two sides
	// of a deadlock do not meet again in step.
	txBackoff = 5 * time.Millisecond
)

// tx runs fn in one transaction, committing when it returns nil. A transaction that PostgreSQL rolled back
// as a deadlock victim or for a serialization failure runs again from the start, up to txRetries more
// times: fn must therefore set everything it returns afresh on each run. The error of the last attempt is
// returned unwrapped, for the caller to classify with fail.
func (s *Store) tx(ctx context.Context, fn func(tx pgx.Tx) error) error {
	for attempt := 0; ; attempt++ {
		err := pgx.BeginFunc(ctx, s.pool, fn)
		if err == nil || attempt == txRetries || !retryable(err) {
			return err
		}
		s.retries.Add(1)
		t := time.NewTimer(jitter(txBackoff << attempt))
		select {
		case <-ctx.Done():
			t.Stop()
			// Both: the caller's cancellation decides how fail classifies it, the database error says why.
			return fmt.Errorf("%w (retrying after: %w)", ctx.Err(), err)
		case <-t.C:
		}
	}
}

// retryable reports whether err means PostgreSQL rolled the whole transaction back because of a
// concurrent one, so that running it again can succeed. Such an error is only ever reported for a
// transaction that did not commit, the commit's own included.
func retryable(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && (pe.Code == codeDeadlock || pe.Code == codeSerialization)
}

// jitter returns a duration picked evenly from [d/2, d).
func jitter(d time.Duration) time.Duration {
	return d/2 + rand.N(d/2)
}
