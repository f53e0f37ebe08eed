package sqlite

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/feedbridge/feedbridge/core"
)

// maxGroup bounds how many waiting writes share one transaction.
const maxGroup = 64

// A write waits its turn for the single writer. Writes that queue up while a transaction runs are then
// committed together (group commit): each runs inside its own savepoint, so one that fails is rolled back
// alone, and the commit's page writes and fsync are paid once for the group. This is what lets concurrent
// API requests go faster than one transaction each.
type writeReq struct {
	ctx  context.Context
	op   string
	fn   func(tx *wtx) error
	done chan error
}

// errClosed is the answer to a write after Close.
var errClosed = fmt.Errorf("store closed: %w", core.ErrUnavailable)

// write runs fn in a write transaction on the single writer connection (BEGIN IMMEDIATE), possibly shared
// with other writes; fn's changes are committed or rolled back as a unit either way.
func (s *Store) write(ctx context.Context, op string, fn func(tx *wtx) error) error {
	req := &writeReq{ctx: ctx, op: op, fn: fn, done: make(chan error, 1)}
	select {
	case s.writes <- req:
	case <-ctx.Done():
		return s.fail(op, ctx.Err())
	case <-s.quit:
		return fmt.Errorf("sqlite: %s: %w", op, errClosed)
	}
	// Once handed over, the write runs (or is skipped for a done context) and always answers.
	return <-req.done
}

// writer owns the writer connection: it runs every write until Close.
func (s *Store) writer() {
	defer close(s.stopped)
	tick := time.NewTicker(optimizeEvery)
	defer tick.Stop()
	for {
		select {
		case req := <-s.writes:
			s.group(req)
		case <-tick.C:
			s.group(&writeReq{ctx: context.Background(), op: "optimize", fn: optimize, done: make(chan error, 1)})
		case <-s.quit:
			return
		}
	}
}

// optimizeEvery is how often the planner's statistics are refreshed as the data grows.
const optimizeEvery = time.Hour

// optimize refreshes the query planner's statistics where they are stale (PRAGMA optimize), sampling
// (analysis_limit) so that it stays quick on a large file. Without statistics SQLite may scan a whole
// workspace for a filter an index would answer.
func optimize(tx *wtx) error {
	if _, err := tx.raw.ExecContext(tx.ctx, `PRAGMA analysis_limit = 1000`); err != nil {
		return err
	}
	_, err := tx.raw.ExecContext(tx.ctx, `PRAGMA optimize = 0x10002`)
	return err
}

// group runs first and every write already waiting in one transaction.
func (s *Store) group(first *writeReq) {
	batch := []*writeReq{first}
	for len(batch) < maxGroup {
		select {
		case r := <-s.writes:
			batch = append(batch, r)
			continue
		default:
		}
		break
	}
	errs := make([]error, len(batch))
	defer func() {
		for i, r := range batch {
			r.done <- s.fail(r.op, errs[i])
		}
	}()
	// The transaction is not tied to any one request: a client that goes away must not roll back the
	// others' writes (a cancelled statement interrupts the whole connection), so statements run without
	// cancellation and a request whose context ended before its turn is skipped.
	ctx := context.Background()
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		for i := range errs {
			errs[i] = err
		}
		return
	}
	t := &wtx{raw: tx, c: s.wc, ctx: ctx}
	ok := 0
	for i, r := range batch {
		if err := r.ctx.Err(); err != nil {
			errs[i] = err
			continue
		}
		if errs[i] = s.savepoint(t, r.fn, len(batch) > 1); errs[i] == nil {
			ok++
		}
	}
	if ok > 0 {
		if err := t.flushIndex(); err != nil {
			// Without its index rows no write of the group may stand.
			for i := range errs {
				if errs[i] == nil {
					errs[i] = err
				}
			}
			ok = 0
		}
	}
	if ok == 0 {
		tx.Rollback()
	} else if err := tx.Commit(); err != nil {
		for i := range errs {
			if errs[i] == nil {
				errs[i] = err
			}
		}
	} else {
		s.commits.Add(1)
		s.grouped.Add(int64(ok))
	}
	s.prepare(ctx, t.missed)
}

// savepoint runs fn inside a savepoint of the group's transaction (when it is shared) and undoes fn's
// changes, queued full-text rows included, when it fails.
func (s *Store) savepoint(t *wtx, fn func(tx *wtx) error, shared bool) error {
	if !shared {
		return fn(t)
	}
	queued := len(t.fts)
	if _, err := t.raw.ExecContext(t.ctx, `SAVEPOINT w`); err != nil {
		return err
	}
	err := fn(t)
	if err != nil {
		t.fts = t.fts[:queued]
		if _, rerr := t.raw.ExecContext(t.ctx, `ROLLBACK TO w`); rerr != nil {
			err = errors.Join(err, rerr)
		}
	}
	if _, rerr := t.raw.ExecContext(t.ctx, `RELEASE w`); rerr != nil && err == nil {
		err = rerr
	}
	return err
}
