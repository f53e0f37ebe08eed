// Package sqlite is feedbridge's embedded store: one SQLite file (WAL) behind the core.Store interface.
// Writes go through a single connection in BEGIN IMMEDIATE transactions, so the rules that need
// serialising (idea limit, idempotency, dedup) hold without retries; reads use a small pool of query-only
// connections. Every query is scoped by workspace id.
package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"time"

	"github.com/feedbridge/feedbridge/core"
	_ "modernc.org/sqlite" // registers the "sqlite" driver
)

// Store is the SQLite implementation of core.Store. It is safe for concurrent use.
type Store struct {
	w    *sql.DB // exactly one connection: the single writer
	r    *sql.DB // query-only readers
	path string
	now  func() time.Time
	mode searchMode
}

var _ core.Store = (*Store)(nil)

// readers is the size of the read pool; the machines this runs on have few cores and SQLite readers are
// CPU-bound, so more connections only add contention.
const readers = 4

// Open opens (creating when missing) the SQLite database at path and applies every pending migration.
func Open(ctx context.Context, path string) (*Store, error) {
	if path == "" {
		return nil, errors.New("sqlite: open: empty path")
	}
	w, err := sql.Open("sqlite", dsn(path, "&_txlock=immediate"))
	if err != nil {
		return nil, fmt.Errorf("sqlite: open %s: %w", path, err)
	}
	w.SetMaxOpenConns(1)
	w.SetMaxIdleConns(1)
	w.SetConnMaxLifetime(0)
	w.SetConnMaxIdleTime(0)
	s := &Store{w: w, path: path, now: time.Now}
	if err := s.migrate(ctx); err != nil {
		w.Close()
		return nil, err
	}
	// The readers open after the migrations so that their first statement already sees the schema.
	r, err := sql.Open("sqlite", dsn(path, "&_query_only=1"))
	if err != nil {
		w.Close()
		return nil, fmt.Errorf("sqlite: open %s: %w", path, err)
	}
	r.SetMaxOpenConns(readers)
	r.SetMaxIdleConns(readers)
	s.r = r
	return s, nil
}

// dsn builds the driver's name for path: a file: URI (so a path with '?' or '#' survives) with the pragmas
// every connection needs.
func dsn(path, extra string) string {
	p := (&url.URL{Path: path}).EscapedPath()
	return "file:" + p + "?_pragma=busy_timeout(5000)&_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)" +
		"&_pragma=foreign_keys(1)&_pragma=temp_store(MEMORY)&_pragma=cache_size(-32000)&_pragma=mmap_size(1073741824)" + extra
}

// Path is the database file the store was opened on.
func (s *Store) Path() string { return s.path }

// Ping checks that the database answers and that its schema is the one this binary expects.
func (s *Store) Ping(ctx context.Context) error {
	v, err := s.schemaVersion(ctx, s.r)
	if err != nil {
		return s.fail("ping", err)
	}
	if want := latestVersion(); v != want {
		return fmt.Errorf("sqlite: ping: schema version %d, this binary needs %d (run feedbridge migrate): %w", v, want, core.ErrUnavailable)
	}
	return nil
}

// Close closes both pools. In-flight statements finish first.
func (s *Store) Close() error {
	var errs []error
	if s.r != nil {
		errs = append(errs, s.r.Close())
	}
	errs = append(errs, s.w.Close())
	return errors.Join(errs...)
}

// nowMS is the store's clock in Unix milliseconds, for lease and queue times.
func (s *Store) nowMS() int64 { return s.now().UnixMilli() }

// write runs fn in one write transaction (BEGIN IMMEDIATE on the single writer connection).
func (s *Store) write(ctx context.Context, op string, fn func(tx *sql.Tx) error) error {
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		return s.fail(op, err)
	}
	if err := fn(tx); err != nil {
		tx.Rollback()
		return s.fail(op, err)
	}
	if err := tx.Commit(); err != nil {
		return s.fail(op, err)
	}
	return nil
}
