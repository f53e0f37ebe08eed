package postgres_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/feedbridge/feedbridge/core"
	"github.com/feedbridge/feedbridge/store/postgres"
	"github.com/feedbridge/feedbridge/store/postgres/pgtest"
)

// argsCatcher keeps the text and arguments of the statements a store sends.
type argsCatcher struct {
	mu   sync.Mutex
	sent []pgx.TraceQueryStartData
}

func (c *argsCatcher) TraceQueryStart(ctx context.Context, _ *pgx.Conn, d pgx.TraceQueryStartData) context.Context {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.sent = append(c.sent, d)
	return ctx
}
func (c *argsCatcher) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}

// TestMoveStatusReadsTheRecordOnce: a status move is one statement that reads the record before its update
// and updates it. The record is looked up by its key once; the statement's reading of the row before the
// update is the same heap tuple fetched by its address, not a second descent of the primary key. Checked on
// the plans PostgreSQL runs the statement with, as the store sends it: the first executions' custom plans
// and the generic plan a pooled connection settles on.
func TestMoveStatusReadsTheRecordOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := pgtest.Open(t)
	ws := workspace(t, st, 0).ID
	pool := st.Pool()
	if _, err := pool.Exec(ctx, `INSERT INTO records (workspace_id, id, type, title, search_text, status, source, created_at, updated_at)
		SELECT $1, 'a' || lpad(to_hex(g), 23, '0'), 'Idea', 'idea ' || g, 'idea ' || g, 'Triage', 'API', now(), now()
		FROM generate_series(1, 2000) g`, ws); err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(ctx, `ANALYZE records`); err != nil {
		t.Fatal(err)
	}
	catch := &argsCatcher{}
	if err := postgres.TracePool(ctx, st, catch); err != nil {
		t.Fatal(err)
	}
	id := core.ID("a" + strings.Repeat("0", 20) + "3e8")
	_, wrote, err := st.MoveStatus(ctx, ws, core.StatusMove{ID: id, To: map[core.RecordType]string{core.RecordIdea: "Planned"},
		IfVersion: -1, At: time.Now(), Actor: core.Actor{Kind: core.ActorAPIKey, Name: "k"}})
	if err != nil || !wrote {
		t.Fatalf("move: wrote %v, %v", wrote, err)
	}
	catch.mu.Lock()
	move := catch.sent[0]
	catch.mu.Unlock()

	conn, err := st.Pool().Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Release()
	if _, err := conn.Conn().Prepare(ctx, "move_plan", move.SQL); err != nil {
		t.Fatal(err)
	}
	params := make([]string, len(move.Args))
	for i := range params {
		params[i] = fmt.Sprintf("$%d", i+1)
	}
	for _, mode := range []string{"force_custom_plan", "force_generic_plan"} {
		if _, err := conn.Exec(ctx, "SET plan_cache_mode = "+mode); err != nil {
			t.Fatal(err)
		}
		var out string
		if err := conn.QueryRow(ctx, "EXPLAIN (FORMAT JSON) EXECUTE move_plan("+strings.Join(params, ", ")+")",
			append([]any{pgx.QueryExecModeSimpleProtocol}, move.Args...)...).Scan(&out); err != nil {
			t.Fatal(err)
		}
		var plan []struct{ Plan planNode }
		if err := json.Unmarshal([]byte(out), &plan); err != nil || len(plan) != 1 {
			t.Fatalf("%s: plan %q: %v", mode, out, err)
		}
		var scans []string
		plan[0].Plan.walk(func(n planNode) {
			if n.Relation == "records" && n.Type != "ModifyTable" {
				scans = append(scans, n.Type)
			}
		})
		keyed := 0
		for _, s := range scans {
			if s != "Tid Scan" {
				keyed++
			}
		}
		if keyed != 1 {
			t.Errorf("%s: the move scans records %v, want one lookup by key (and the row again by its address)", mode, scans)
		}
	}
}

// planNode is the part of a node of EXPLAIN (FORMAT JSON) that the plan tests read.
type planNode struct {
	Type     string     `json:"Node Type"`
	Relation string     `json:"Relation Name"`
	Plans    []planNode `json:"Plans"`
}

func (n planNode) walk(fn func(planNode)) {
	fn(n)
	for _, c := range n.Plans {
		c.walk(fn)
	}
}
