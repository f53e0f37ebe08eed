package slack

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/feedbridge/feedbridge/connectors"
	"github.com/feedbridge/feedbridge/core"
)

func TestBuildRejectsBadEntries(t *testing.T) {
	h := newHarness(t)
	env := connectors.Env{Service: h.svc, Log: logrus.NewEntry(logrus.New())}
	tests := []struct {
		name    string
		entries []map[string]any
		want    string
	}{
		{"unknown key", []map[string]any{{"name": "a", "workspace": testWS, "signing_secert": "x"}}, `slack "a": unknown keys: signing_secert`},
		{"missing secret", []map[string]any{{"name": "a", "workspace": testWS}}, `slack "a": signing_secret is required`},
		{"secret file missing", []map[string]any{{"name": "a", "workspace": testWS, "signing_secret": "file:/nonexistent/slack"}}, `slack "a": signing_secret`},
		{"bad command kind", []map[string]any{{"name": "a", "workspace": testWS, "signing_secret": "x", "commands": map[string]any{"/bug": "task"}}},
			`/bug must be feedback or idea`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Build(tt.entries, env)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want it to contain %q", err, tt.want)
			}
		})
	}
}

func TestBuildValidatesWithoutService(t *testing.T) {
	// feedbridge config check builds every connector without a store.
	entries := []map[string]any{{"name": "a", "workspace": testWS, "signing_secret": "x", "bot_token": "xoxb-1"}}
	if _, err := Build(entries, connectors.Env{}); err != nil {
		t.Fatalf("valid entry without a service: %v", err)
	}
}

func TestBuildReadsSecretFiles(t *testing.T) {
	h := newHarness(t)
	ws := h.workspace("Acme", -1)
	path := filepath.Join(t.TempDir(), "slack-signing")
	if err := os.WriteFile(path, []byte("from-a-file\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	h.start([]map[string]any{entry("acme-slack", ws, "file:"+path)}, nil)
	h.secrets = append(h.secrets, "from-a-file")
	if got := h.command("from-a-file", "T0ACME", "/feedback", "Signed with the file's secret"); !strings.HasPrefix(got, "Saved Feedback") {
		t.Errorf("answer %q", got)
	}
}

func TestRunReportsStatus(t *testing.T) {
	h := newHarness(t)
	ws := h.workspace("Acme", -1)
	h.start([]map[string]any{entry("acme-slack", ws, "s3cret-one")}, nil)
	ctx, cancel := context.WithCancel(h.ctx)
	done := make(chan error, 1)
	go func() { done <- h.set.Run(ctx) }()
	status := func() core.ConnectorStatus {
		sts, err := h.svc.Connectors(h.ctx, ws)
		if err != nil || len(sts) != 1 {
			t.Fatalf("statuses %+v, %v", sts, err)
		}
		return sts[0]
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		if sts, _ := h.svc.Connectors(h.ctx, ws); len(sts) == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no status reported")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if st := status(); st.State != "running" || st.Kind != "slack" || st.Name != "acme-slack" || !st.LastSuccessAt.IsZero() {
		t.Errorf("status before any command %+v", st)
	}
	h.command("s3cret-one", "T0ACME", "/feedback", "Counted")
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("Run: %v", err)
	}
	if st := status(); st.State != "stopped" || st.LastSuccessAt.IsZero() || st.LastError != "" {
		t.Errorf("status after shutdown %+v", st)
	}
}
