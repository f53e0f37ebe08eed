package cli

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/feedbridge/feedbridge/core"
	"github.com/feedbridge/feedbridge/store/sqlite"
)

// failEvent stores an event for subscriber sub in ws and gives up on it, as the delivery would after its
// retry_for.
func failEvent(t *testing.T, cfg string, ws core.ID, sub string) core.ID {
	t.Helper()
	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(filepath.Dir(cfg), "fb.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	id := core.NewID()
	it := core.QueueItem{ID: id, Queue: core.EventQueue(sub), Kind: core.EventKind, Workspace: ws, Key: "rec-1",
		Body: []byte(`{"type": "record.created"}`), RetryFor: time.Minute}
	if err := st.EnqueueItems(ctx, []core.QueueItem{it}); err != nil {
		t.Fatal(err)
	}
	claimed, err := st.ClaimItems(ctx, it.Queue, "w", 1, time.Minute)
	if err != nil || len(claimed) != 1 {
		t.Fatalf("claim: %v, %v", claimed, err)
	}
	if failed, err := st.RetryItem(ctx, claimed[0], "w", "503 Service Unavailable", time.Hour); err != nil || !failed {
		t.Fatalf("give up: %v, %v", failed, err)
	}
	return id
}

func TestEventsFailedAndRetry(t *testing.T) {
	cfg := newConfig(t, "")
	_, out, _ := run(t, cfg, "workspace", "create", "--name", "Acme", "--plan", "pro")
	ws := core.ID(strings.TrimSpace(out))
	_, out, _ = run(t, cfg, "workspace", "create", "--name", "Other", "--plan", "pro")
	other := core.ID(strings.TrimSpace(out))
	id := failEvent(t, cfg, ws, "crm")
	failEvent(t, cfg, other, "crm")

	var listed []struct {
		ID         core.ID `json:"id"`
		Subscriber string  `json:"subscriber"`
		Workspace  core.ID `json:"workspace"`
		Type       string  `json:"type"`
		Record     string  `json:"record"`
		Attempts   int     `json:"attempts"`
		LastError  string  `json:"last_error"`
	}
	code, out, errOut := run(t, cfg, "events", "failed", "--workspace", string(ws), "--json")
	if code != 0 {
		t.Fatalf("events failed: exit %d: %s", code, errOut)
	}
	mustJSON(t, out, &listed)
	if len(listed) != 1 || listed[0].ID != id || listed[0].Subscriber != "crm" || listed[0].Type != "record.created" ||
		listed[0].Record != "rec-1" || listed[0].Attempts != 1 || listed[0].LastError != "503 Service Unavailable" {
		t.Fatalf("events failed --workspace = %+v", listed)
	}
	if code, out, _ = run(t, cfg, "events", "failed"); code != 0 || !strings.Contains(out, "EVENT") || strings.Count(out, "crm") != 2 {
		t.Fatalf("events failed (table, all workspaces): exit %d\n%s", code, out)
	}

	cases := []struct {
		name string
		args []string
		code int
		out  string
	}{
		{"neither id nor --all", []string{"events", "retry"}, 2, ""},
		{"both", []string{"events", "retry", string(id), "--all"}, 2, ""},
		{"not an id", []string{"events", "retry", "nope"}, 2, ""},
		{"one", []string{"events", "retry", string(id)}, 0, "requeued 1 event(s)"},
		{"the same again", []string{"events", "retry", string(id)}, 1, ""},
		{"the rest", []string{"events", "retry", "--all"}, 0, "requeued 1 event(s)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, out, errOut := run(t, cfg, c.args...)
			if code != c.code || !strings.Contains(out, c.out) {
				t.Fatalf("exit %d, want %d; out %q, err %q", code, c.code, out, errOut)
			}
		})
	}
	if _, out, _ = run(t, cfg, "events", "failed", "--json"); strings.TrimSpace(out) != "[]" {
		t.Fatalf("still failed after retry: %s", out)
	}
}
