package postgres_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/feedbridge/feedbridge/core"
	"github.com/feedbridge/feedbridge/store/postgres"
	"github.com/feedbridge/feedbridge/store/postgres/pgtest"
)

// tripCounter counts what the store sends: a statement on its own is one round trip, a batch or a COPY is
// one round trip however many rows or statements it holds, and a statement prepared before its first use costs one
// more.
type tripCounter struct {
	mu         sync.Mutex
	trips      int
	statements []string
}

func (c *tripCounter) add(trips int, sql string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.trips += trips
	if sql != "" {
		c.statements = append(c.statements, strings.Join(strings.Fields(sql), " "))
	}
}

func (c *tripCounter) reset() (int, []string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	trips, stmts := c.trips, c.statements
	c.trips, c.statements = 0, nil
	return trips, stmts
}

func (c *tripCounter) TraceQueryStart(ctx context.Context, _ *pgx.Conn, d pgx.TraceQueryStartData) context.Context {
	c.add(1, d.SQL)
	return ctx
}
func (c *tripCounter) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}
func (c *tripCounter) TraceBatchStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceBatchStartData) context.Context {
	c.add(1, "")
	return ctx
}
func (c *tripCounter) TraceBatchQuery(_ context.Context, _ *pgx.Conn, d pgx.TraceBatchQueryData) {
	c.add(0, d.SQL)
}
func (c *tripCounter) TraceCopyFromStart(ctx context.Context, _ *pgx.Conn, d pgx.TraceCopyFromStartData) context.Context {
	c.add(1, "COPY "+d.TableName.Sanitize())
	return ctx
}
func (c *tripCounter) TraceCopyFromEnd(context.Context, *pgx.Conn, pgx.TraceCopyFromEndData) {}
func (c *tripCounter) TraceBatchEnd(context.Context, *pgx.Conn, pgx.TraceBatchEndData)       {}
func (c *tripCounter) TracePrepareStart(ctx context.Context, _ *pgx.Conn, _ pgx.TracePrepareStartData) context.Context {
	c.add(1, "")
	return ctx
}
func (c *tripCounter) TracePrepareEnd(context.Context, *pgx.Conn, pgx.TracePrepareEndData) {}

// TestCreateRoundTrips counts the statements and round trips of creates once the connection's statement
// cache is warm: a POST of a new customer's feedback, one of a known customer, and a batch of ten, each
// below HTTP as core.Service runs them. They are held to bounds so that a change that adds a round trip to
// every create shows.
func TestCreateRoundTrips(t *testing.T) {
	ctx := context.Background()
	st := pgtest.Open(t)
	tc := &tripCounter{}
	if err := postgres.TracePool(ctx, st, tc); err != nil {
		t.Fatal(err)
	}
	svc := core.NewService(st, core.Options{})
	ws := workspace(t, st, 0).ID
	submit := func(i int, email string) {
		t.Helper()
		if _, err := svc.Submit(ctx, ws, core.Submission{Type: core.RecordFeedback, Title: fmt.Sprintf("Export is slow %d", i),
			Description: "It times out on big files.", CustomerEmail: email, Source: "API"}); err != nil {
			t.Fatal(err)
		}
	}
	batch := func(i int) {
		t.Helper()
		subs := make([]core.Submission, 10)
		for k := range subs {
			subs[k] = core.Submission{Type: core.RecordFeedback, Title: fmt.Sprintf("Batch %d-%d", i, k),
				CustomerEmail: fmt.Sprintf("b%d-%d@c%d.example", i, k, k%3), Source: "API"}
		}
		if _, err := svc.SubmitBatch(ctx, ws, subs); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 3 { // warm the statement caches of the pool's connections
		submit(i, fmt.Sprintf("warm%d@acme.example", i))
		submit(i, "known@acme.example")
		batch(i)
	}
	for _, c := range []struct {
		name     string
		run      func()
		maxTrips int
	}{
		{"new customer", func() { submit(10, "new@other.example") }, 3},
		{"known customer", func() { submit(11, "known@acme.example") }, 2},
		{"batch of ten", func() { batch(10) }, 8},
	} {
		tc.reset()
		c.run()
		trips, stmts := tc.reset()
		t.Logf("%s: %d round trips, %d statements", c.name, trips, len(stmts))
		for _, s := range stmts {
			t.Logf("  %.160s", s)
		}
		if trips > c.maxTrips {
			t.Errorf("%s: %d round trips, want at most %d", c.name, trips, c.maxTrips)
		}
	}
}
