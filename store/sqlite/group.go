package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"sync/atomic"
	"time"

	"github.com/feedbridge/feedbridge/core"
)

// maxGroup bounds how many waiting writes share one transaction.
const maxGroup = 64

// A write waits its turn for the single writer. Whoever finds the writer free runs, as leader, its own
// write and every write queued behind it in one transaction (group commit): each in its own savepoint,
// so one that fails is rolled back alone, while the commit's page writes are paid once for the group.
// An uncontended write therefore runs at once on its caller's goroutine; under concurrent load the
// queue turns into larger, cheaper transactions.
type writeReq struct {
	ctx   context.Context
	op    string
	fn    func(tx *wtx) error
	done  chan error   // buffered: the leader never waits for the caller
	state atomic.Int32 // reqQueued, then reqStarted by the leader or reqAbandoned by the caller
	solo  bool         // runs in a transaction of its own (see writeSolo)
}

// A queued write is either started by a leader or abandoned by its caller, never both: a caller whose
// context ends before its write starts leaves at once instead of waiting out another transaction's wait
// for the lock, and a write that has started is always answered.
const (
	reqQueued int32 = iota
	reqStarted
	reqAbandoned
)

// errClosed is the answer to a write after Close.
var errClosed = fmt.Errorf("store closed: %w", core.ErrUnavailable)

// write runs fn in a write transaction on the single writer connection (BEGIN IMMEDIATE), possibly shared
// with other writes; fn's changes are committed or rolled back as a unit either way. Once queued, a write
// is always answered: a caller whose context ends while it waits is skipped, never abandoned mid-write.
func (s *Store) write(ctx context.Context, op string, fn func(tx *wtx) error) error {
	return s.enqueueWrite(&writeReq{ctx: ctx, op: op, fn: fn, done: make(chan error, 1)})
}

// writeSolo is write for a long background job's steps (an erasure's chunks): the step gets a transaction
// of its own, so a write queued just before it is never held to its commit, and one queued just after it
// never starts behind it in the same transaction.
func (s *Store) writeSolo(ctx context.Context, op string, fn func(tx *wtx) error) error {
	return s.enqueueWrite(&writeReq{ctx: ctx, op: op, fn: fn, done: make(chan error, 1), solo: true})
}

func (s *Store) enqueueWrite(req *writeReq) error {
	ctx, op := req.ctx, req.op
	s.qmu.Lock()
	if s.closed {
		s.qmu.Unlock()
		return fmt.Errorf("sqlite: %s: %w", op, errClosed)
	}
	s.queue = append(s.queue, req)
	s.qmu.Unlock()
	for {
		select {
		case err := <-req.done:
			return err
		case <-ctx.Done():
			if req.state.CompareAndSwap(reqQueued, reqAbandoned) {
				return fmt.Errorf("sqlite: %s: %w", op, ctx.Err())
			}
			return <-req.done
		case s.lead <- struct{}{}:
			if batch := s.take(); len(batch) > 0 {
				s.group(batch)
			}
			<-s.lead
		}
	}
}

// take removes up to maxGroup queued writes, oldest first, stopping before a solo write that is not first
// and after one that is.
func (s *Store) take() []*writeReq {
	s.qmu.Lock()
	defer s.qmu.Unlock()
	n := min(len(s.queue), maxGroup)
	for i, r := range s.queue[:n] {
		if r.solo {
			n = max(i, 1)
			break
		}
	}
	batch := s.queue[:n:n]
	s.queue = s.queue[n:]
	return batch
}

// maintain refreshes the planner's statistics now and then, and after an import that created records,
// until Close.
func (s *Store) maintain() {
	defer close(s.stopped)
	tick := time.NewTicker(optimizeEvery)
	defer tick.Stop()
	idle := time.NewTicker(writerIdle / 2)
	defer idle.Stop()
	for {
		select {
		case <-idle.C:
			s.releaseMap()
		case <-tick.C:
			s.write(housekeeping(), "optimize", optimize)
		case <-s.restat:
			// An import can grow a workspace tenfold in minutes; its listings should not plan with the
			// statistics of before until the next hour.
			s.write(housekeeping(), "optimize", optimize)
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
//
// A connection reads the statistics only when it reads the schema, so the readers, open since the store
// opened, would keep planning with the statistics of then (an empty store's, say) while a workspace grows
// by imports. When the statistics change, a table created and dropped again changes the schema's version,
// and every connection reads the schema, and with it the new statistics, before its next statement.
func optimize(tx *wtx) error {
	stats := func() (string, error) {
		var n int
		if err := tx.raw.QueryRowContext(tx.ctx, `SELECT count(*) FROM sqlite_schema WHERE name = 'sqlite_stat1'`).Scan(&n); err != nil || n == 0 {
			return "", err
		}
		var s sql.NullString
		err := tx.raw.QueryRowContext(tx.ctx, `SELECT group_concat(tbl || ' ' || idx || ' ' || stat, ';') FROM sqlite_stat1`).Scan(&s)
		return s.String, err
	}
	before, err := stats()
	if err != nil {
		return err
	}
	if _, err := tx.raw.ExecContext(tx.ctx, `PRAGMA analysis_limit = 1000`); err != nil {
		return err
	}
	if _, err := tx.raw.ExecContext(tx.ctx, `PRAGMA optimize = 0x10002`); err != nil {
		return err
	}
	after, err := stats()
	if err != nil || after == before {
		return err
	}
	for _, ddl := range []string{`CREATE TABLE stats_reload (x)`, `DROP TABLE stats_reload`} {
		if _, err := tx.raw.ExecContext(tx.ctx, ddl); err != nil {
			return err
		}
	}
	return nil
}

// groupBudget is how long a group's transaction keeps taking the writes queued with it: once it has run
// this long, the writes not yet started go back to the head of the queue for the next transaction. Another
// process waiting for the write lock (a command beside the daemon) then waits for about one write, however
// many are queued, while small writes still share a commit.
const groupBudget = 50 * time.Millisecond

// group runs batch in one transaction, or its first writes in one transaction and the rest later (see
// groupBudget), and answers each write it ran or skipped.
func (s *Store) group(batch []*writeReq) {
	errs := make([]error, len(batch))
	defer func() {
		for i, r := range batch {
			r.done <- s.fail(r.op, errs[i])
		}
	}()
	committed := false
	defer func() { s.health.observe(committed, errs) }()
	// The transaction is not tied to any one request: a client that goes away must not roll back the
	// others' writes (a cancelled statement interrupts the whole connection), so statements run without
	// cancellation and a request whose context ended before its turn is skipped.
	ctx := context.Background()
	if !slices.ContainsFunc(batch, func(r *writeReq) bool { return r.ctx.Err() == nil && r.state.Load() == reqQueued }) {
		for i, r := range batch {
			errs[i] = skipped(r)
		}
		return // nothing left to write: no transaction, no wait for the lock
	}
	tx, err := s.begin(ctx, batch)
	if err != nil {
		for i, r := range batch {
			if r.state.CompareAndSwap(reqQueued, reqStarted) {
				errs[i] = err
			} else {
				errs[i] = skipped(r)
			}
		}
		return
	}
	began := time.Now()
	t := &wtx{raw: tx, c: s.wc, ctx: ctx}
	ok := 0
	for i, r := range batch {
		if ok > 0 && time.Since(began) > groupBudget {
			s.requeue(batch[i:])
			batch, errs = batch[:i], errs[:i]
			break
		}
		if r.ctx.Err() != nil || !r.state.CompareAndSwap(reqQueued, reqStarted) {
			errs[i] = skipped(r)
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
		committed = true
		s.commits.Add(1)
		s.grouped.Add(int64(ok))
		s.queued(t.queued)
		for _, fn := range t.hooks {
			fn()
		}
	}
	s.prepare(ctx, t.missed)
}

// skipped is the answer to a write whose caller left before it started.
func skipped(r *writeReq) error {
	if err := context.Cause(r.ctx); err != nil {
		return err
	}
	return context.Canceled
}

// requeue puts writes a group did not start back at the head of the queue, in their order; one of their
// callers, all still waiting in write, leads the next group.
func (s *Store) requeue(rest []*writeReq) {
	s.qmu.Lock()
	s.queue = append(slices.Clip(rest), s.queue...)
	s.qmu.Unlock()
}

type housekeepingKey struct{}

// housekeeping is the context of the store's background writes (index drains, statistics), which give up
// with the group they share when no other caller waits for it, and try again later.
func housekeeping() context.Context {
	return context.WithValue(context.Background(), housekeepingKey{}, true)
}

// beginPoll is the writer connection's own busy timeout: how long one BEGIN waits for another process's
// lock before begin looks again whether anyone still waits for the group.
const beginPoll = 100 * time.Millisecond

// begin starts the group's transaction. While another process holds the write lock it keeps trying for up
// to the store's busy timeout, but only as long as some write of batch still has a caller waiting for it:
// SQLite's own wait for the lock ignores cancellation, so a group whose callers have all gone (a stopping
// worker, a request that timed out) would otherwise hold the writer, and every write queued behind it,
// for the whole timeout. Nothing has been written when it gives up, so every write of batch may fail.
func (s *Store) begin(ctx context.Context, batch []*writeReq) (*sql.Tx, error) {
	s.turn.enter()
	defer s.turn.leave()
	deadline := time.Now().Add(s.busy)
	s.writerBegan.Store(time.Now().UnixNano())
	s.writerMapped.Store(true)
	for {
		tx, err := s.w.BeginTx(ctx, nil)
		if err == nil || !isBusy(err) || time.Now().After(deadline) {
			return tx, err
		}
		if cause := waited(batch); cause != nil {
			return nil, cause
		}
	}
}

// waited returns the cause of the first caller's end when no caller of batch waits any more, else nil.
// The store's own housekeeping (housekeeping) does not count as waiting: it tries again later, and must
// not keep a group whose callers have gone waiting for the lock.
func waited(batch []*writeReq) error {
	var cause error
	for _, r := range batch {
		if r.ctx.Err() == nil && r.ctx.Value(housekeepingKey{}) == nil {
			return nil
		}
		if cause == nil {
			cause = context.Cause(r.ctx)
		}
	}
	return cause
}

// savepoint runs fn inside a savepoint of the group's transaction (when it is shared) and undoes fn's
// changes, queued full-text rows included, when it fails.
func (s *Store) savepoint(t *wtx, fn func(tx *wtx) error, shared bool) error {
	if !shared {
		return fn(t)
	}
	queued, hooks := len(t.fts), len(t.hooks)
	if _, err := t.ExecContext(t.ctx, `SAVEPOINT w`); err != nil {
		return err
	}
	err := fn(t)
	if err != nil {
		t.fts, t.hooks = t.fts[:queued], t.hooks[:hooks]
		if _, rerr := t.ExecContext(t.ctx, `ROLLBACK TO w`); rerr != nil {
			err = errors.Join(err, rerr)
		}
	}
	if _, rerr := t.ExecContext(t.ctx, `RELEASE w`); rerr != nil && err == nil {
		err = rerr
	}
	return err
}
