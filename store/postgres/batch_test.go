package postgres_test

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/feedbridge/feedbridge/store/postgres/pgtest"
)

// The simple create path sends a record's rows as one batch outside an explicit transaction and relies on
// PostgreSQL running a pipeline up to its Sync as one implicit transaction: a failing statement must undo
// the ones before it.
func TestBatchIsOneTransaction(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := pgtest.Open(t)
	b := &pgx.Batch{}
	b.Queue(`INSERT INTO leases (name, holder, expires_at) VALUES ('batch', 'me', now())`)
	b.Queue(`SELECT 1 / (SELECT count(*) FROM leases WHERE name = 'nothing')`)
	if err := st.Pool().SendBatch(ctx, b).Close(); err == nil {
		t.Fatal("the failing statement did not fail")
	}
	var n int
	if err := st.Pool().QueryRow(ctx, `SELECT count(*) FROM leases WHERE name = 'batch'`).Scan(&n); err != nil || n != 0 {
		t.Fatalf("the insert before the failure survived (%d rows, %v)", n, err)
	}
}
