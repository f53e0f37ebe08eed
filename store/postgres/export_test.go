package postgres

import (
	"context"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/feedbridge/feedbridge/core"
)

// TracePool gives the store a pool on the same configuration whose connections report every statement to
// tracer, so that a test can count what one store call sends.
func TracePool(ctx context.Context, s *Store, tracer pgx.QueryTracer) error {
	cfg := s.pool.Config()
	cfg.ConnConfig.Tracer = tracer
	p, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return err
	}
	old := s.pool
	s.pool = p
	old.Close()
	return nil
}

// ListSQL is the statement and arguments of a listing, for tests and benchmarks that read its plan.
func ListSQL(ws core.ID, q core.ListQuery) (string, []any) { return listSQL(ws, q) }

// BulkSQL exposes the statements of CreateRecords to the plan test.
var BulkSQL = struct{ Table, Contacts, Insert string }{bulkTable, bulkContacts, bulkInsert}

// RollupSQL adds records' insights to the theme roll-up, as the insight write does.
const RollupSQL = rollupSQL

// InTx runs fn as the store's own writes run their transactions, retries included.
func InTx(ctx context.Context, s *Store, fn func(tx pgx.Tx) error) error {
	return s.inTx(ctx, "test", fn)
}

// TxRetries is how many times the store has run a transaction again after a deadlock or serialization
// failure.
func TxRetries(s *Store) int64 { return s.retries.Load() }
