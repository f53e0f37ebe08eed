package postgres_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/sirupsen/logrus"

	"github.com/feedbridge/feedbridge/api"
	"github.com/feedbridge/feedbridge/core"
	"github.com/feedbridge/feedbridge/store/postgres"
	"github.com/feedbridge/feedbridge/store/postgres/pgtest"
)

// argsCatcher counts round trips as tripCounter does and keeps the arguments of the statements sent.
type argsCatcher struct {
	*tripCounter
	sent []pgx.TraceQueryStartData // guarded by tripCounter.mu
}

func (c *argsCatcher) TraceQueryStart(ctx context.Context, conn *pgx.Conn, d pgx.TraceQueryStartData) context.Context {
	c.mu.Lock()
	c.sent = append(c.sent, d)
	c.mu.Unlock()
	return c.tripCounter.TraceQueryStart(ctx, conn, d)
}

// TestPatchStatusReadsTheRecordOnce: a PATCH of a status, sent to the real server, is one round trip and
// one statement to PostgreSQL, and that statement looks the record up by its key once. The statement's
// reading of the row before its update is the same heap tuple fetched by its address, not a second descent
// of the primary key. Checked on the plans PostgreSQL runs the statement with, as the server sent it: the
// first executions' custom plans and the generic plan a pooled connection settles on.
func TestPatchStatusReadsTheRecordOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := pgtest.Open(t)
	ws := workspace(t, st, 0).ID
	if _, err := st.Pool().Exec(ctx, `INSERT INTO records (workspace_id, id, type, title, search_text, status, source, created_at, updated_at)
		SELECT $1, 'a' || lpad(to_hex(g), 23, '0'), 'Idea', 'idea ' || g, 'idea ' || g, 'Triage', 'API', now(), now()
		FROM generate_series(1, 2000) g`, ws); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Pool().Exec(ctx, `ANALYZE records`); err != nil {
		t.Fatal(err)
	}
	catch := &argsCatcher{tripCounter: &tripCounter{}}
	if err := postgres.TracePool(ctx, st, catch); err != nil {
		t.Fatal(err)
	}
	svc := core.NewService(st, core.Options{})
	_, key, err := svc.CreateKey(ctx, ws, "plan")
	if err != nil {
		t.Fatal(err)
	}
	log := logrus.New()
	log.SetOutput(io.Discard)
	srv := httptest.NewServer(api.New(svc, api.Options{Log: logrus.NewEntry(log)}).Handler())
	defer srv.Close()
	patch := func(status string) {
		t.Helper()
		rq, _ := http.NewRequest("PATCH", srv.URL+"/api/records/a"+strings.Repeat("0", 20)+"3e8", strings.NewReader(`{"status":"`+status+`"}`))
		rq.Header.Set("Content-Type", "application/json")
		rq.Header.Set("X-API-Key", key)
		res, err := srv.Client().Do(rq)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		if b, _ := io.ReadAll(res.Body); res.StatusCode != http.StatusOK {
			t.Fatalf("PATCH: %d %s", res.StatusCode, b)
		}
	}
	for i := range 6 { // past the key's first lookup and the statement's preparation
		patch([]string{"Planned", "In progress"}[i%2])
	}
	catch.reset()
	catch.mu.Lock()
	catch.sent = nil
	catch.mu.Unlock()
	patch("Done")
	trips, stmts := catch.reset()
	if trips != 1 || len(stmts) != 1 {
		t.Fatalf("a PATCH of a status: %d round trips, statements %q; want one", trips, stmts)
	}
	move := catch.sent[0]

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
		// EXECUTE takes no bind parameters: the simple protocol puts the arguments in as literals.
		if err := conn.QueryRow(ctx, "EXPLAIN (FORMAT JSON) EXECUTE move_plan("+strings.Join(params, ", ")+")",
			append([]any{pgx.QueryExecModeSimpleProtocol}, move.Args...)...).Scan(&out); err != nil {
			t.Fatal(err)
		}
		var plan []struct{ Plan planNode }
		if err := json.Unmarshal([]byte(out), &plan); err != nil || len(plan) != 1 {
			t.Fatalf("%s: plan %q: %v", mode, out, err)
		}
		var scans []string
		keyed := 0
		plan[0].Plan.walk(func(n planNode) {
			if n.Relation == "records" && n.Type != "ModifyTable" {
				scans = append(scans, n.Type)
				if n.Type != "Tid Scan" {
					keyed++
				}
			}
		})
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
