package api

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/feedbridge/feedbridge/core"
)

// TestConnectorsListsOnlyConfiguredEntries: an entry that a reload removed keeps its last stored state,
// but GET /api/connectors lists only the entries configured now. Before the fix a removed CSV entry was
// listed as "waiting" for ever.
func TestConnectorsListsOnlyConfiguredEntries(t *testing.T) {
	eachStore(t, func(t *testing.T, open opener) {
		configured := map[string]bool{"csv:kept": true}
		var e *env
		e = newEnv(t, open, envOpts{configured: func(ws core.ID, kind, name string) bool {
			return ws == e.ws.ID && configured[kind+":"+name]
		}})
		ctx := context.Background()
		for _, name := range []string{"kept", "gone"} {
			must(t, e.svc.ReportConnector(ctx, core.ConnectorStatus{Workspace: e.ws.ID, Name: name, Kind: "csv", State: "running"}))
		}
		var got []map[string]any
		e.get("/api/connectors").want(t, 200).decode(t, &got)
		if len(got) != 1 || got[0]["name"] != "kept" {
			t.Fatalf("connectors %v, want only the configured entry", got)
		}
		// Removed too: nothing is listed.
		configured = map[string]bool{}
		e.get("/api/connectors").want(t, 200).decode(t, &got)
		if len(got) != 0 {
			t.Fatalf("connectors %v after every entry was removed", got)
		}
	})
}

// TestReadyzFailingPersistsUntilASuccess: a mailbox whose login fails reports error, then connecting on its
// next attempt; /readyz names it as failing throughout, until a poll succeeds. Before the fix the
// connecting report cleared it, so it came and went between polls.
func TestReadyzFailingPersistsUntilASuccess(t *testing.T) {
	e := newEnv(t, openSQLite, envOpts{})
	ctx := context.Background()
	steps := []struct {
		state, lastError string
		failing          bool
	}{
		{"starting", "", false},
		{"error", "login failed", true},
		{"starting", "login failed", true},
		{"error", "login failed", true},
		{"starting", "login failed", true},
		{"running", "", false},
		{"error", "connection reset", true},
		{"stopped", "connection reset", false},
	}
	for i, s := range steps {
		must(t, e.svc.ReportConnector(ctx, core.ConnectorStatus{Workspace: e.ws.ID, Name: "inbox", Kind: "email", State: s.state, LastError: s.lastError}))
		var body struct {
			Failing []string `json:"failing"`
		}
		r := e.do(req{method: "GET", path: "/readyz", key: "-"}).want(t, 200)
		if err := json.Unmarshal(r.body, &body); err != nil {
			t.Fatal(err)
		}
		if got := len(body.Failing) == 1 && body.Failing[0] == "email:inbox"; got != s.failing {
			t.Fatalf("step %d (%s, %q): failing %v, want email:inbox failing %v", i, s.state, s.lastError, body.Failing, s.failing)
		}
	}
}

// TestConnectorRefusalsShownNotFailing: refused items show in GET /api/connectors as refused, last_refused
// and last_refused_at, apart from last_error, and /readyz does not list the entry as failing for them.
func TestConnectorRefusalsShownNotFailing(t *testing.T) {
	eachStore(t, func(t *testing.T, open opener) {
		e := newEnv(t, open, envOpts{})
		ctx := context.Background()
		at := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
		must(t, e.svc.ReportConnector(ctx, core.ConnectorStatus{Workspace: e.ws.ID, Name: "inbox", Kind: "email", State: "running",
			Refused: 2, LastRefused: "a message without a sender", LastRefusedAt: at}))
		must(t, e.svc.ReportConnector(ctx, core.ConnectorStatus{Workspace: e.ws.ID, Name: "inbox", Kind: "email", State: "running",
			Refused: 1, LastRefused: "a message over max_size", LastRefusedAt: at.Add(time.Second)}))
		var got []map[string]any
		e.get("/api/connectors").want(t, 200).decode(t, &got)
		if len(got) != 1 || got[0]["refused"] != float64(3) || got[0]["last_refused"] != "a message over max_size" ||
			got[0]["last_refused_at"] != "2026-11-01T12:00:01.000Z" || got[0]["last_error"] != "" {
			t.Fatalf("connectors %v, want 3 refused, the newest reason and time, no last_error", got)
		}
		var body map[string]any
		r := e.do(req{method: "GET", path: "/readyz", key: "-"}).want(t, 200)
		if err := json.Unmarshal(r.body, &body); err != nil {
			t.Fatal(err)
		}
		if body["status"] != "ready" || body["failing"] != nil {
			t.Fatalf("/readyz %v: refusals made the entry failing", body)
		}
	})
}
