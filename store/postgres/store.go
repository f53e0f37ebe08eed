// Package postgres is feedbridge's store for more than one machine: PostgreSQL through a pgx pool behind the
// core.Store interface, shared safely by any number of replicas. Every query is scoped by workspace id;
// uniqueness rules (idempotency, dedup, the idea limit) are enforced by the database itself, and leases and
// the insight queue use the database's clock so that replicas agree on time.
package postgres

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/feedbridge/feedbridge/core"
	"github.com/feedbridge/feedbridge/store/internal/fairshare"
	"github.com/feedbridge/feedbridge/store/internal/jobqueue"
)

// Store is the PostgreSQL implementation of core.Store. It is safe for concurrent use.
type Store struct {
	pool   *pgxpool.Pool
	leases *pgxpool.Pool // a small pool of its own, so that lease renewals never queue behind bulk writes

	signals    *fairshare.Gate // one signals aggregation at a time per workspace
	searches   *fairshare.Gate // one search at a time per workspace (query.go)
	claimMu    sync.Mutex
	claimAfter map[string]string // per queue, the workspace this replica's last fair claim ended on (queue_fair.go)

	jobqueue.Views // insight jobs and deliveries on the general queue

	erasure atomic.Pointer[[]byte] // the key of erased dedup keys, once read (erasekeys.go)
	retries atomic.Int64           // transactions run again after a deadlock or serialization failure (retry.go)
}

var _ core.Store = (*Store)(nil)

// readLimit is the longest a listing runs before it is cancelled and answered as unavailable.
const readLimit = 10 * time.Second

// Open connects to the database at url (postgres://user:pass@host:5432/db?sslmode=disable, plus any pgx
// pool parameter such as pool_max_conns) and applies every pending migration under a migration lock, so
// replicas that start together migrate once. A database that cannot be reached wraps core.ErrUnavailable.
func Open(ctx context.Context, url string) (*Store, error) {
	s, err := connect(ctx, url, false)
	if err != nil {
		return nil, err
	}
	if err := s.migrate(ctx); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// OpenInspect connects without migrating, with every transaction read-only, for `config check`: it looks
// at the database and changes nothing in it. SchemaStatus says whether migrations are pending.
func OpenInspect(ctx context.Context, url string) (*Store, error) {
	return connect(ctx, url, true)
}

// connect opens the pools of a store at url; readOnly makes the database refuse every write.
func connect(ctx context.Context, url string, readOnly bool) (*Store, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		// pgx's parse errors can quote the URL, password included; say only what kind of problem it is.
		return nil, errors.New("postgres: open: invalid store.url (expected postgres://user:pass@host:port/db)")
	}
	// Defaults for a daemon, where the URL does not say otherwise: a dead host fails fast (the API answers
	// 503, workers back off) instead of hanging on the operating system's TCP timeout, and the pool is big
	// enough for concurrent requests plus workers and connectors (pgx's own default is 4 on small hosts).
	if cfg.ConnConfig.ConnectTimeout == 0 {
		cfg.ConnConfig.ConnectTimeout = 5 * time.Second
	}
	if !strings.Contains(url, "pool_max_conns") {
		cfg.MaxConns = 10
	}
	if readOnly {
		cfg.ConnConfig.RuntimeParams["default_transaction_read_only"] = "on"
		cfg.MaxConns, cfg.MinConns = 2, 0
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fail("open", err)
	}
	lcfg := cfg.Copy()
	lcfg.MaxConns, lcfg.MinConns = leaseConns, 0
	leases, err := pgxpool.NewWithConfig(ctx, lcfg)
	if err != nil {
		pool.Close()
		return nil, fail("open", err)
	}
	// Searches may hold half the pool at once (the rest serves writes, listings and the workers), and the
	// gate keeps one of those for workspaces that are not searching without pause.
	s := &Store{pool: pool, leases: leases, searches: fairshare.NewSearchGate(int(cfg.MaxConns) / 2),
		claimAfter: map[string]string{}, signals: fairshare.NewSignalGate()}
	s.Views = jobqueue.Views{Q: s}
	return s, nil
}

// SchemaStatus returns the schema version the database has (0 for one never migrated) and the one this
// binary needs; it changes nothing.
func (s *Store) SchemaStatus(ctx context.Context) (have, want int, err error) {
	var exists bool
	if err := s.pool.QueryRow(ctx, `SELECT to_regclass('schema_migrations') IS NOT NULL`).Scan(&exists); err != nil {
		return 0, 0, fail("schema status", err)
	}
	if exists {
		if have, err = s.schemaVersion(ctx); err != nil {
			return 0, 0, fail("schema status", err)
		}
	}
	return have, latestVersion(), nil
}

// Pool is the underlying connection pool, for benchmarks and tools that need raw access.
func (s *Store) Pool() *pgxpool.Pool { return s.pool }

// Ping checks that the database answers and that its schema is at least the one this binary needs.
func (s *Store) Ping(ctx context.Context) error {
	v, err := s.schemaVersion(ctx)
	if err != nil {
		return fail("ping", err)
	}
	if want := latestVersion(); v < want {
		return fmt.Errorf("postgres: ping: schema version %d, this binary needs %d (run feedbridge migrate): %w", v, want, core.ErrUnavailable)
	}
	return nil
}

// Close closes the pool, waiting for connections in use to be returned.
func (s *Store) Close() error {
	s.pool.Close()
	s.leases.Close()
	return nil
}

// inTx runs fn in one transaction, committing when it returns nil, and runs it again after a deadlock or
// serialization failure (see tx): fn must set what it returns afresh on each run.
func (s *Store) inTx(ctx context.Context, op string, fn func(tx pgx.Tx) error) error {
	if err := s.tx(ctx, fn); err != nil {
		return fail(op, err)
	}
	return nil
}

// ms is the form of every stored time: UTC, millisecond precision, no monotonic reading.
func ms(t time.Time) time.Time { return t.UTC().Truncate(time.Millisecond) }

// optTime stores a zero time as NULL.
func optTime(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return ms(t)
}

// fromOpt reads a nullable time back; NULL is the zero time.
func fromOpt(t *time.Time) time.Time {
	if t == nil {
		return time.Time{}
	}
	return ms(*t)
}

// bound is a range limit as given (not truncated), NULL when open.
func bound(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return t.UTC()
}
