package slack

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/feedbridge/feedbridge/core"
)

// lockWriter holds SQLite's write lock from another connection, the way a long write by another process
// would, so the store is genuinely slow until release is called.
func (h *harness) lockWriter() (release func()) {
	h.t.Helper()
	db, err := sql.Open("sqlite", "file:"+h.dbPath+"?_pragma=busy_timeout(5000)")
	if err != nil {
		h.t.Fatal(err)
	}
	conn, err := db.Conn(h.ctx)
	if err != nil {
		h.t.Fatal(err)
	}
	if _, err := conn.ExecContext(h.ctx, "BEGIN IMMEDIATE"); err != nil {
		h.t.Fatal(err)
	}
	return func() {
		_, _ = conn.ExecContext(context.Background(), "ROLLBACK")
		conn.Close()
		db.Close()
	}
}

func TestSlowStoreAnswersAtOnceAndPostsLater(t *testing.T) {
	h := newHarness(t)
	ws := h.workspace("Acme", -1)
	h.start([]map[string]any{entry("acme-slack", ws, "s3cret-one")}, func(o *options) { o.slowAfter = 100 * time.Millisecond })
	// response_url fails twice before it takes the message: the outcome is retried, not lost.
	h.stub.reply("/response/", stubReply{500, "oops"}, stubReply{503, "busy"}, stubReply{200, "ok"})

	release := h.lockWriter()
	start := time.Now()
	answer := h.command("s3cret-one", "T0ACME", "/feedback", "jane@acme.com Slow | but saved")
	if waited := time.Since(start); waited > time.Second {
		t.Errorf("answer took %v with a slow store", waited)
	}
	if answer != "Saving… the result follows here in a moment." {
		t.Errorf("first answer %q", answer)
	}
	time.Sleep(200 * time.Millisecond)
	if n := len(h.stub.callsTo("/response/")); n != 0 {
		t.Errorf("%d posts to response_url before the store answered", n)
	}
	release()
	calls := h.stub.wait(t, "/response/", 3)
	for _, c := range calls {
		if c.JSON["response_type"] != "ephemeral" || c.JSON["replace_original"] != false {
			t.Errorf("response_url body %v", c.JSON)
		}
	}
	text, _ := calls[2].JSON["text"].(string)
	if !strings.HasPrefix(text, "Saved Feedback “Slow” for Acme (jane@acme.com) · id `") {
		t.Errorf("late answer %q", text)
	}
	if rec := h.recordIn(ws, text); rec.Description != "but saved" {
		t.Errorf("record %+v", rec)
	}
	if len(calls) != 3 || calls[0].Path != calls[2].Path {
		t.Errorf("attempts went to %d places: %+v", len(calls), calls)
	}
}

func TestPostResponseRetries(t *testing.T) {
	tests := []struct {
		name    string
		replies []stubReply
		calls   int
		err     bool
	}{
		{"first try", []stubReply{{200, "ok"}}, 1, false},
		{"after 429 and 502", []stubReply{{429, ""}, {502, ""}, {200, "ok"}}, 3, false},
		{"gives up after the last retry", []stubReply{{500, ""}}, 4, true},
		{"no retry on 404", []stubReply{{404, "expired_url"}}, 1, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t)
			h.start(nil, nil)
			h.stub.reply("/response/", tt.replies...)
			err := h.set.postResponse(h.ctx, h.stub.srv.URL+"/response/1", ephemeral("hi"))
			if (err != nil) != tt.err {
				t.Errorf("err = %v, want error: %v", err, tt.err)
			}
			if err != nil && strings.Contains(err.Error(), h.stub.srv.URL) {
				t.Errorf("error names the response_url: %v", err)
			}
			if n := len(h.stub.callsTo("/response/")); n != tt.calls {
				t.Errorf("%d attempts, want %d", n, tt.calls)
			}
		})
	}
}

func TestSlowModalSubmissionPostsInChannel(t *testing.T) {
	h := newHarness(t)
	ws := h.workspace("Acme", -1)
	h.start([]map[string]any{entry("acme-slack", ws, "s3cret-one", "bot_token", "xoxb-bot")},
		func(o *options) { o.slowAfter = 100 * time.Millisecond })
	release := h.lockWriter()
	status, body := h.post("/slack/interactions", "s3cret-one", viewSubmission("T0ACME", "V0SLOW", map[string]any{
		"title": map[string]any{"value": map[string]any{"type": "plain_text_input", "value": "Slow idea"}},
	}), nil)
	if status != 200 || strings.TrimSpace(string(body)) != `{"response_action":"clear"}` {
		t.Errorf("answer %d %s", status, body)
	}
	release()
	calls := h.stub.wait(t, "/api/chat.postEphemeral", 1)
	f := calls[0].Form
	if f.Get("channel") != "C0CHAN" || f.Get("user") != "U0PAT" || !strings.HasPrefix(f.Get("text"), "Saved Idea “Slow idea” with no customer") {
		t.Errorf("postEphemeral form %v", f)
	}
	if n := h.count(ws, core.RecordIdea); n != 1 {
		t.Errorf("%d ideas", n)
	}
}

func TestFailureTextHidesInternals(t *testing.T) {
	h := newHarness(t)
	h.start(nil, nil)
	text, fault := failureText(errors.New("sqlite: insert into records at /var/lib/db: disk I/O error"), h.set.log)
	for _, s := range []string{"sqlite", "/var/lib", "disk"} {
		if strings.Contains(text, s) || strings.Contains(fault, s) {
			t.Errorf("%q leaks %q (fault %q)", text, s, fault)
		}
	}
	if !strings.Contains(h.logs.String(), "disk I/O error") || !strings.Contains(h.logs.String(), "error_id") {
		t.Errorf("the log lacks the cause or its reference: %s", h.logs.String())
	}
}
