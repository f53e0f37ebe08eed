package slack

import (
	"context"
	"net/http"
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
		{"unknown key", []map[string]any{{"name": "a", "workspace": testWS, "signing_secert": "x"}}, `a: unknown keys: signing_secert`},
		{"missing secret", []map[string]any{{"name": "a", "workspace": testWS}}, `a: signing_secret: is required`},
		{"secret file missing", []map[string]any{{"name": "a", "workspace": testWS, "signing_secret": "file:/nonexistent/slack"}}, `a: signing_secret: secret:`},
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
	writeSecret(t, path, "from-a-file")
	h.start([]map[string]any{entry("acme-slack", ws, "file:"+path)}, nil)
	h.secrets = append(h.secrets, "from-a-file")
	if got := h.command("from-a-file", "T0ACME", "/feedback", "Signed with the file's secret"); !strings.HasPrefix(got, "Saved Feedback") {
		t.Errorf("answer %q", got)
	}
}

// TestBotTokenReadAtUse rotates the bot token file between two calls to Slack's Web API: the second call
// carries the new token, without a restart.
func TestBotTokenReadAtUse(t *testing.T) {
	h := newHarness(t)
	ws := h.workspace("Acme", -1)
	path := filepath.Join(t.TempDir(), "slack-bot")
	writeSecret(t, path, "xoxb-before")
	h.secrets = append(h.secrets, "xoxb-before", "xoxb-after")
	h.start([]map[string]any{entry("acme-slack", ws, "s3cret-one", "bot_token", "file:"+path)}, nil)
	openModal := func() {
		t.Helper()
		if status, body := h.post("/slack/commands", "s3cret-one", h.commandForm("T0ACME", "/idea", ""), nil); status != http.StatusOK || len(body) != 0 {
			t.Fatalf("answer %d %q, want the modal (200, no body)", status, body)
		}
	}
	openModal()
	writeSecret(t, path, "xoxb-after")
	openModal()
	calls := h.stub.wait(t, "/api/views.open", 2)
	if calls[0].Auth != "Bearer xoxb-before" || calls[1].Auth != "Bearer xoxb-after" {
		t.Errorf("Authorization headers %q then %q, want the token before and after the rotation", calls[0].Auth, calls[1].Auth)
	}
}

// writeSecret writes a secret file as Docker and Kubernetes do, with a trailing newline.
func writeSecret(t testing.TB, path, v string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(v+"\n"), 0o600); err != nil {
		t.Fatal(err)
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
	if st := status(); st.State != "stopped" || st.LastSuccessAt.IsZero() || st.LastError != "" || st.TakenToday != 1 {
		t.Errorf("status after shutdown %+v (one record taken today)", st)
	}
}
