package sqlite

import (
	"context"
	"database/sql"
	"sync"
)

// maxCached bounds the statement cache; past it, new queries (IN lists sized by one request) run
// unprepared instead.
const maxCached = 512

// stmtCache keeps prepared statements of one pool by their SQL text. Preparing is a good part of a small
// query's cost in SQLite, and the store runs a small, fixed set of statements.
type stmtCache struct {
	db *sql.DB
	mu sync.Mutex
	m  map[string]*sql.Stmt
}

func newStmtCache(db *sql.DB) *stmtCache { return &stmtCache{db: db, m: map[string]*sql.Stmt{}} }

// get returns the prepared statement for query, or nil when the cache is full and query is not in it.
func (c *stmtCache) get(ctx context.Context, query string) (*sql.Stmt, error) {
	c.mu.Lock()
	st, ok := c.m[query]
	full := len(c.m) >= maxCached
	c.mu.Unlock()
	if ok || full {
		return st, nil
	}
	st, err := c.db.PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if prev, ok := c.m[query]; ok {
		st.Close()
		return prev, nil
	}
	c.m[query] = st
	return st, nil
}

// lookup returns the cached statement for query without preparing it (nil when absent).
func (c *stmtCache) lookup(query string) *sql.Stmt {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.m[query]
}

func (c *stmtCache) close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for q, st := range c.m {
		st.Close()
		delete(c.m, q)
	}
}

// reader runs queries on the read pool through the cache.
type reader struct{ c *stmtCache }

func (r reader) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	st, err := r.c.get(ctx, query)
	if err != nil {
		return nil, err
	}
	if st == nil {
		return r.c.db.QueryContext(ctx, query, args...)
	}
	return st.QueryContext(ctx, args...)
}

func (r reader) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	if st, err := r.c.get(ctx, query); err == nil && st != nil {
		return st.QueryRowContext(ctx, args...)
	}
	// Unprepared, which also reports a prepare error through the row, as database/sql does.
	return r.c.db.QueryRowContext(ctx, query, args...)
}

// wtx is a write transaction whose statements come from the writer's cache. The transaction holds the
// writer's only connection, so a statement missing from the cache cannot be prepared on the pool here: it
// runs unprepared, and write prepares it for next time once the connection is free again.
//
// Every statement runs with the transaction's own context, never a caller's: see group.
type wtx struct {
	raw    *sql.Tx
	c      *stmtCache
	ctx    context.Context
	missed []string
	bound  [maxBound]boundStmt // the cached statements already bound to raw, in the order first used
	nbound int
	fts    []ftsEntry // the records whose full-text entries are to be queued (indexer.go)
	queued int        // how many entries the transaction queued
	hooks  []func()   // run once the transaction has committed
}

// onCommit runs fn after the transaction commits, and never if the write that asked is rolled back.
func (t *wtx) onCommit(fn func()) { t.hooks = append(t.hooks, fn) }

// index notes that a record needs its full-text entry; flushIndex queues them for the indexer.
func (t *wtx) index(seq int64) { t.fts = append(t.fts, ftsEntry{seq: seq, counted: 1}) }

// indexNew is index for a record just inserted, which its company's count does not include yet
// (foldCounts in companies.go).
func (t *wtx) indexNew(seq int64) { t.fts = append(t.fts, ftsEntry{seq: seq}) }

// ftsEntry is a row of records_fts_pending.
type ftsEntry struct {
	seq     int64
	counted int // 0 while the record's company count does not include it
}

// flushIndex queues the transaction's full-text entries for the indexer (indexer.go).
func (t *wtx) flushIndex() error {
	for len(t.fts) > 0 {
		n := min(len(t.fts), queueRows)
		args := make([]any, 0, 2*n)
		for _, e := range t.fts[:n] {
			args = append(args, e.seq, e.counted)
		}
		query := queueOneIndex
		if n > 1 {
			query = `INSERT INTO records_fts_pending(seq, counted) VALUES ` + placeholders(n, 2)
		}
		if _, err := t.ExecContext(t.ctx, query, args...); err != nil {
			return err
		}
		t.fts, t.queued = t.fts[n:], t.queued+n
	}
	return nil
}

// queueRows is how many seqs one statement queues.
const queueRows = 1000

// queueOneIndex is flushIndex's statement for a transaction of one record, the usual create.
var queueOneIndex = `INSERT INTO records_fts_pending(seq, counted) VALUES ` + placeholders(1, 2)

// boundStmt is a cached statement and its copy bound to one transaction.
type boundStmt struct{ cached, tx *sql.Stmt }

// maxBound is how many bound statements a transaction keeps for reuse: enough for every statement of a
// group of creates or PATCHes, while a transaction of many different statements (an erasure's) binds the
// rest on each use rather than searching a long list.
const maxBound = 16

// stmt returns the cached statement for query bound to the transaction, or nil when it is not cached.
// Binding costs database/sql allocations and locks, and the bound copy is closed only at the transaction's
// end, so each statement is bound once per transaction: a group of writes runs the same few statements
// (and savepoints) once per write.
func (t *wtx) stmt(query string) (*sql.Stmt, error) {
	st := t.c.lookup(query)
	if st == nil {
		t.missed = append(t.missed, query)
		return nil, nil
	}
	for _, b := range t.bound[:t.nbound] {
		if b.cached == st {
			return b.tx, nil
		}
	}
	txst := t.raw.StmtContext(t.ctx, st)
	if t.nbound < maxBound {
		t.bound[t.nbound] = boundStmt{cached: st, tx: txst}
		t.nbound++
	}
	return txst, nil
}

func (t *wtx) ExecContext(_ context.Context, query string, args ...any) (sql.Result, error) {
	st, err := t.stmt(query)
	if err != nil {
		return nil, err
	}
	if st == nil {
		return t.raw.ExecContext(t.ctx, query, args...)
	}
	return st.ExecContext(t.ctx, args...)
}

func (t *wtx) QueryContext(_ context.Context, query string, args ...any) (*sql.Rows, error) {
	st, err := t.stmt(query)
	if err != nil {
		return nil, err
	}
	if st == nil {
		return t.raw.QueryContext(t.ctx, query, args...)
	}
	return st.QueryContext(t.ctx, args...)
}

func (t *wtx) QueryRowContext(_ context.Context, query string, args ...any) *sql.Row {
	if st, err := t.stmt(query); err == nil && st != nil {
		return st.QueryRowContext(t.ctx, args...)
	}
	return t.raw.QueryRowContext(t.ctx, query, args...)
}

// PrepareContext prepares a statement for this transaction only (the bulk path's large inserts).
func (t *wtx) PrepareContext(_ context.Context, query string) (*sql.Stmt, error) {
	return t.raw.PrepareContext(t.ctx, query)
}
