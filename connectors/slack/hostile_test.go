package slack

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/feedbridge/feedbridge/core"
)

// A signed idea-form submission for an entry without a bot token, while the store is slower than the
// slow-path limit, saves the idea and leaves the daemon running: there is no channel to post the outcome
// to, and that is logged instead.
func TestSlowModalSubmissionWithoutBotToken(t *testing.T) {
	h := newHarness(t)
	ws := h.workspace("Acme", -1)
	h.start([]map[string]any{entry("acme-slack", ws, "s3cret-one")}, func(o *options) { o.slowAfter = 100 * time.Millisecond })
	release := h.lockWriter()
	status, body := h.post("/slack/interactions", "s3cret-one", viewSubmission("T0ACME", "V0NOBOT", map[string]any{
		"title": input("Slow idea without a bot"),
	}), nil)
	if status != 200 || strings.TrimSpace(string(body)) != `{"response_action":"clear"}` {
		t.Errorf("answer %d %s", status, body)
	}
	release()
	h.set.bg.Wait()
	if n := h.count(ws, core.RecordIdea); n != 1 {
		t.Errorf("%d ideas, want 1", n)
	}
	if !strings.Contains(h.logs.String(), "cannot be shown without a bot_token") {
		t.Errorf("log: %s", h.logs.String())
	}
	if n := len(h.stub.callsTo("/api/")); n != 0 {
		t.Errorf("%d Web API calls without a bot token", n)
	}
}

// Work that outlives a Slack request recovers from a panic, logs it with an error_id and lets the
// connector carry on.
func TestBackgroundWorkRecovers(t *testing.T) {
	h := newHarness(t)
	ws := h.workspace("Acme", -1)
	h.start([]map[string]any{entry("acme-slack", ws, "s3cret-one")}, nil)
	h.set.background(func() {
		var a *app
		_ = a.Workspace // a nil pointer, as an unforeseen input might cause
	})
	h.set.bg.Wait()
	logs := h.logs.String()
	if !strings.Contains(logs, "recovered from a panic") || !strings.Contains(logs, "error_id=") {
		t.Errorf("log: %s", logs)
	}
	if answer := h.command("s3cret-one", "T0ACME", "/feedback", "Still here"); !strings.HasPrefix(answer, "Saved Feedback") {
		t.Errorf("answer after the panic %q", answer)
	}
}

// Outcomes go to a response_url only when it is one of Slack's hooks URLs: a signed payload naming an
// internal address (or plain http) gets nothing posted there.
func TestResponseURLOnlyToSlack(t *testing.T) {
	var hits atomic.Int64
	internal := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1) }))
	defer internal.Close()
	h := newHarness(t)
	ws := h.workspace("Acme", -1)
	h.start([]map[string]any{entry("acme-slack", ws, "s3cret-one")}, func(o *options) { o.slowAfter = 100 * time.Millisecond })
	for _, target := range []string{internal.URL + "/response/1", h.stub.srv.URL + "/admin/response/1"} {
		form := h.commandForm("T0ACME", "/feedback", "Slow | aimed elsewhere")
		form.Set("response_url", target)
		release := h.lockWriter()
		status, _ := h.post("/slack/commands", "s3cret-one", form, nil)
		release()
		h.set.bg.Wait()
		if status != 200 {
			t.Errorf("status %d", status)
		}
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("%d posts reached an internal server", n)
	}
	if n := len(h.stub.callsTo("/admin/")); n != 0 {
		t.Errorf("%d posts outside the hooks path", n)
	}
	if n := strings.Count(h.logs.String(), "not a Slack hooks URL"); n != 2 {
		t.Errorf("%d refusals logged, want 2: %s", n, h.logs.String())
	}
	if strings.Contains(h.logs.String(), internal.URL) {
		t.Error("the log names the response_url")
	}
}

func TestUnderBase(t *testing.T) {
	const base = "https://hooks.slack.com/"
	for raw, want := range map[string]bool{
		"https://hooks.slack.com/commands/T0/123/abc":    true,
		"https://HOOKS.slack.com/actions/T0/1/x":         true,
		"http://hooks.slack.com/commands/T0/123/abc":     false,
		"https://hooks.slack.com.evil.example/x":         false,
		"https://hooks.slack.com:8443/x":                 false,
		"https://user:pw@hooks.slack.com/x":              false,
		"https://evil.example/?https://hooks.slack.com/": false,
		"https://169.254.169.254/latest/meta-data/":      false,
		"//hooks.slack.com/x":                            false,
		"":                                               false,
	} {
		if got := underBase(raw, base); got != want {
			t.Errorf("underBase(%q) = %v, want %v", raw, got, want)
		}
	}
}
