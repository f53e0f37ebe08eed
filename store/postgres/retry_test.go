package postgres_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/feedbridge/feedbridge/core"
	"github.com/feedbridge/feedbridge/store/postgres"
	"github.com/feedbridge/feedbridge/store/postgres/pgtest"
)

// TestTxRetriesDeadlock provokes a real deadlock: two transactions each lock one row of a table and then
// wait for the other's. PostgreSQL ends one of them; it must run again and both must commit.
func TestTxRetriesDeadlock(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := pgtest.Open(t)
	if _, err := st.Pool().Exec(ctx, `CREATE TABLE scratch (id int PRIMARY KEY, n int NOT NULL);
		INSERT INTO scratch VALUES (1, 0), (2, 0)`); err != nil {
		t.Fatal(err)
	}
	var (
		attempts atomic.Int32
		locked   sync.WaitGroup // both first attempts hold their first row
		errs     = make([]error, 2)
		wg       sync.WaitGroup
	)
	fast := superuser(t, st)
	locked.Add(2)
	for i, order := range [][2]int{{1, 2}, {2, 1}} {
		wg.Go(func() {
			first := true
			errs[i] = postgres.InTx(ctx, st, func(tx pgx.Tx) error {
				attempts.Add(1)
				// Detect the deadlock soon rather than after the server's default second, where the
				// setting may be changed.
				if fast {
					if _, err := tx.Exec(ctx, `SET LOCAL deadlock_timeout = '100ms'`); err != nil {
						return err
					}
				}
				if _, err := tx.Exec(ctx, `UPDATE scratch SET n = n + 1 WHERE id = $1`, order[0]); err != nil {
					return err
				}
				if first {
					first = false
					locked.Done()
					locked.Wait()
				}
				_, err := tx.Exec(ctx, `UPDATE scratch SET n = n + 1 WHERE id = $1`, order[1])
				return err
			})
		})
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("transaction %d: %v", i, err)
		}
	}
	if got := postgres.TxRetries(st); got != 1 {
		t.Errorf("retries = %d, want 1 (one deadlock victim)", got)
	}
	if got := attempts.Load(); got != 3 {
		t.Errorf("closure ran %d times, want 3", got)
	}
	var sum int
	if err := st.Pool().QueryRow(ctx, `SELECT sum(n) FROM scratch WHERE n = 2`).Scan(&sum); err != nil || sum != 4 {
		t.Fatalf("rows after both transactions: sum of rows at 2 = %d (%v), want both rows at 2", sum, err)
	}
}

// TestTxRetryLimits checks which errors run a transaction again and how often: only a deadlock or a
// serialization failure, at most three more times, and what is returned after the last attempt is
// classified as before.
func TestTxRetryLimits(t *testing.T) {
	t.Parallel()
	st := pgtest.Open(t)
	for _, tc := range []struct {
		name     string
		err      error
		runs     int32
		wantIs   error
		wantCode string
	}{
		{"not retryable", core.ErrStale, 1, core.ErrStale, ""},
		{"unique violation", &pgconn.PgError{Code: "23505"}, 1, core.ErrConflict, ""},
		{"serialization failure", &pgconn.PgError{Code: "40001"}, 4, core.ErrUnavailable, "40001"},
		{"deadlock", &pgconn.PgError{Code: "40P01"}, 4, core.ErrUnavailable, "40P01"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := postgres.TxRetries(st)
			var runs atomic.Int32
			err := postgres.InTx(context.Background(), st, func(tx pgx.Tx) error {
				runs.Add(1)
				if _, err := tx.Exec(context.Background(), `SELECT 1`); err != nil {
					return err
				}
				return tc.err
			})
			if got := runs.Load(); got != tc.runs {
				t.Errorf("ran %d times, want %d", got, tc.runs)
			}
			if got := postgres.TxRetries(st) - before; got != int64(tc.runs-1) {
				t.Errorf("retries counted %d, want %d", got, tc.runs-1)
			}
			if !errors.Is(err, tc.wantIs) {
				t.Errorf("error %v, want it to wrap %v", err, tc.wantIs)
			}
			var pe *pgconn.PgError
			if tc.wantCode != "" && (!errors.As(err, &pe) || pe.Code != tc.wantCode) {
				t.Errorf("error %v does not keep the database's %s", err, tc.wantCode)
			}
		})
	}
}

// TestTxRetryStopsOnCancel checks that a cancelled context ends the retries: the error says both that the
// caller gave up and which database error it gave up on.
func TestTxRetryStopsOnCancel(t *testing.T) {
	t.Parallel()
	st := pgtest.Open(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var runs atomic.Int32
	err := postgres.InTx(ctx, st, func(tx pgx.Tx) error {
		runs.Add(1)
		cancel()
		return &pgconn.PgError{Code: "40P01"}
	})
	if got := runs.Load(); got != 1 {
		t.Errorf("ran %d times after the context was cancelled, want 1", got)
	}
	var pe *pgconn.PgError
	if !errors.Is(err, context.Canceled) || !errors.As(err, &pe) || pe.Code != "40P01" {
		t.Errorf("error %v, want the cancellation and the deadlock it ended", err)
	}
	if errors.Is(err, core.ErrUnavailable) {
		t.Errorf("error %v: a caller's cancellation is not the database being unavailable", err)
	}
}

// TestMergesBesideMergesSucceed runs, round after round, two merges of feedback linked to one Idea at once:
// one of a feedback of the first company into one of the second, the other the reverse. Each moves its
// links in two statements, which change the Idea's link counts per company in opposite orders and can
// deadlock; both merges must still succeed and the counts must end as the links make them.
func TestMergesBesideMergesSucceed(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	// The server looks for a deadlock after waiting a tenth of a second rather than its default second,
	// where the setting may be changed.
	url := pgtest.URL(t)
	if superuser(t, pgtest.Open(t)) {
		url += "&deadlock_timeout=100ms"
	}
	st, err := postgres.Open(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	ws := workspace(t, st, 0).ID
	pool := st.Pool()
	if _, err := pool.Exec(ctx, `INSERT INTO companies (workspace_id, id, name, domain) VALUES
		($1, 'c1', 'Acme', 'acme.test'), ($1, 'c2', 'Globex', 'globex.test')`, ws); err != nil {
		t.Fatal(err)
	}
	const rounds = 100
	now := time.Now().UTC().Truncate(time.Millisecond)
	for r := range rounds {
		// Idea t; feedback a and d of c1, b and c of c2; a and c linked to t. a merges into b, c into d.
		_, err := pool.Exec(ctx, `INSERT INTO records (workspace_id, id, type, title, search_text, status, source,
				company_id, created_at, updated_at)
			SELECT $1, v.id || $2, v.type, 't', 't', 'Triage', 'API', v.company, now(), now()
			FROM (VALUES ('t', 'Idea', ''), ('a', 'Feedback', 'c1'), ('b', 'Feedback', 'c2'), ('c', 'Feedback', 'c2'),
				('d', 'Feedback', 'c1')) AS v(id, type, company)`, ws, fmt.Sprint(r))
		if err != nil {
			t.Fatal(err)
		}
		_, err = pool.Exec(ctx, `INSERT INTO record_links (workspace_id, feedback_id, target_id, created_at)
			SELECT $1, v.f || $2, 't' || $2, now() FROM (VALUES ('a'), ('c')) AS v(f)`, ws, fmt.Sprint(r))
		if err != nil {
			t.Fatal(err)
		}
	}
	for r := range rounds {
		id := func(p string) core.ID { return core.ID(p + fmt.Sprint(r)) }
		var (
			wg    sync.WaitGroup
			start = make(chan struct{})
			errs  = make([]error, 2)
		)
		for i, m := range [][2]core.ID{{id("a"), id("b")}, {id("c"), id("d")}} {
			wg.Go(func() {
				<-start
				_, errs[i] = st.MergeRecords(ctx, ws, m[0], m[1], now, core.Actor{}, nil)
			})
		}
		close(start)
		wg.Wait()
		for i, err := range errs {
			if err != nil {
				t.Fatalf("round %d, merge %d: %v", r, i, err)
			}
		}
	}
	t.Logf("transactions run again: %d", postgres.TxRetries(st))
	if extra, missing := linkCountDrift(t, pool, ws); extra != 0 || missing != 0 {
		t.Fatalf("%d counts of record_link_companies that the links do not make, %d missing", extra, missing)
	}
}

// superuser reports whether the tests' database user may change deadlock_timeout, a superuser's setting.
func superuser(t *testing.T, st *postgres.Store) bool {
	t.Helper()
	var on string
	if err := st.Pool().QueryRow(context.Background(), `SELECT current_setting('is_superuser')`).Scan(&on); err != nil {
		t.Fatal(err)
	}
	return on == "on"
}
