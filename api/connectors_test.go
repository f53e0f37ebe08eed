package api

import (
	"context"
	"encoding/json"
	"testing"

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
