package sqlite

import (
	"cmp"
	"context"
	"database/sql"
	"slices"
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
	fts    []ftsEntry // full-text rows to write when the transaction's writes are done
	queued int        // of them, how many went to the indexer's queue instead (indexer.go)
	hooks  []func()   // run once the transaction has committed
}

// ftsEntry is one record's full-text row. FTS5 starts a new index segment at every statement savepoint
// and whenever a rowid is lower than the previous one, so the entries of a whole transaction are written
// last, in rowid order, in as few statements as possible.
type ftsEntry struct {
	seq  int64
	text string
}

// onCommit runs fn after the transaction commits, and never if the write that asked is rolled back.
func (t *wtx) onCommit(fn func()) { t.hooks = append(t.hooks, fn) }

// index queues a record's full-text row.
func (t *wtx) index(seq int64, text string) { t.fts = append(t.fts, ftsEntry{seq, text}) }

// flushIndex writes the transaction's full-text rows, or, when they are few, queues them for the indexer.
func (t *wtx) flushIndex() error {
	slices.SortFunc(t.fts, func(a, b ftsEntry) int { return cmp.Compare(a.seq, b.seq) })
	if n := len(t.fts); n > 0 && n < inlineIndexRows {
		args := make([]any, n)
		for i, e := range t.fts {
			args[i] = e.seq
		}
		if _, err := t.ExecContext(t.ctx, `INSERT INTO records_fts_pending(seq) VALUES `+placeholders(n, 1), args...); err != nil {
			return err
		}
		t.fts, t.queued = t.fts[:0], n
		return nil
	}
	for len(t.fts) > 0 {
		n := min(len(t.fts), ftsRows)
		args := make([]any, 0, 2*n)
		for _, e := range t.fts[:n] {
			args = append(args, e.seq, e.text)
		}
		if _, err := t.ExecContext(t.ctx, ftsInsert+placeholders(n, 2), args...); err != nil {
			return err
		}
		t.fts = t.fts[n:]
	}
	return nil
}

func (t *wtx) stmt(query string) (*sql.Stmt, error) {
	st := t.c.lookup(query)
	if st == nil {
		t.missed = append(t.missed, query)
		return nil, nil
	}
	return t.raw.StmtContext(t.ctx, st), nil
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
