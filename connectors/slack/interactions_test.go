package slack

import (
	"encoding/json"
	"net/http"
	"net/url"
	"reflect"
	"strings"
	"testing"

	"github.com/feedbridge/feedbridge/core"
)

// payload wraps an interaction the way Slack posts it: a form with one JSON field.
func payload(v map[string]any) url.Values {
	b, _ := json.Marshal(v)
	return url.Values{"payload": {string(b)}}
}

// shortcut is a save_feedback message_action from user U0PAT on a message by author.
func (h *harness) shortcut(team, author, ts, threadTS, text string) url.Values {
	msg := map[string]any{"type": "message", "user": author, "ts": ts, "text": text}
	if threadTS != "" {
		msg["thread_ts"] = threadTS
	}
	return payload(map[string]any{
		"type": "message_action", "callback_id": "save_feedback", "token": "legacy", "api_app_id": "A0APP",
		"trigger_id": "1337.42.abcd", "action_ts": "1700000001.000100", "message_ts": ts,
		"team": map[string]any{"id": team, "domain": "acme"}, "channel": map[string]any{"id": "C0CHAN", "name": "support"},
		"user": map[string]any{"id": "U0PAT", "name": "pat"}, "message": msg,
		"response_url": h.stub.srv.URL + "/response/shortcut",
	})
}

const (
	userWithEmail = `{"ok":true,"user":{"id":"U0AUTHOR","name":"jane","real_name":"Jane Roe","profile":{"real_name":"Jane Roe","email":"jane@acme.com"}}}`
	userNoEmail   = `{"ok":true,"user":{"id":"U0AUTHOR","name":"jane","profile":{"real_name":"Jane Roe"}}}`
)

func TestShortcutSavesMessage(t *testing.T) {
	const text = "The export button is hidden &amp; hard to find\nOn <https://app.acme.com/x|the report page> since Monday.\nThanks <@U0PAT|pat>"
	const plainText = "The export button is hidden & hard to find\nOn the report page (https://app.acme.com/x) since Monday.\nThanks @pat"
	tests := []struct {
		name       string
		botToken   string
		replies    map[string][]stubReply
		threadTS   string
		wantThread string
		customer   string // answer fragment
		email      string
		via        string // where the confirmation goes
	}{
		{name: "author email visible", botToken: "xoxb-bot", replies: map[string][]stubReply{"/api/users.info": {{200, userWithEmail}}},
			wantThread: "1700000000.000200", customer: "for Acme (jane@acme.com)", email: "jane@acme.com", via: "/api/chat.postEphemeral"},
		{name: "in a thread", botToken: "xoxb-bot", replies: map[string][]stubReply{"/api/users.info": {{200, userWithEmail}}},
			threadTS: "1699999999.000100", wantThread: "1699999999.000100", customer: "for Acme", email: "jane@acme.com", via: "/api/chat.postEphemeral"},
		{name: "email hidden", botToken: "xoxb-bot", replies: map[string][]stubReply{"/api/users.info": {{200, userNoEmail}}},
			wantThread: "1700000000.000200", customer: "with no customer", via: "/api/chat.postEphemeral"},
		{name: "missing scope", botToken: "xoxb-bot", replies: map[string][]stubReply{"/api/users.info": {{200, `{"ok":false,"error":"missing_scope"}`}}},
			wantThread: "1700000000.000200", customer: "with no customer", via: "/api/chat.postEphemeral"},
		{name: "bot not in channel", botToken: "xoxb-bot", replies: map[string][]stubReply{
			"/api/users.info":         {{200, userWithEmail}},
			"/api/chat.postEphemeral": {{200, `{"ok":false,"error":"channel_not_found"}`}}},
			customer: "for Acme", email: "jane@acme.com", via: "/response/shortcut"},
		{name: "no bot token", customer: "with no customer", via: "/response/shortcut"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t)
			ws := h.workspace("Acme", -1)
			e := entry("acme-slack", ws, "s3cret-one")
			if tt.botToken != "" {
				e["bot_token"] = tt.botToken
			}
			h.start([]map[string]any{e}, nil)
			for p, rs := range tt.replies {
				h.stub.reply(p, rs...)
			}
			status, body := h.post("/slack/interactions", "s3cret-one", h.shortcut("T0ACME", "U0AUTHOR", "1700000000.000200", tt.threadTS, text), nil)
			if status != http.StatusOK || len(body) != 0 {
				t.Fatalf("ack %d %q, want 200 and no body", status, body)
			}
			confirm := h.stub.wait(t, tt.via, 1)[0]
			var answer string
			if tt.via == "/response/shortcut" {
				answer, _ = confirm.JSON["text"].(string)
			} else {
				answer = confirm.Form.Get("text")
				want := url.Values{"token": {"xoxb-bot"}, "channel": {"C0CHAN"}, "user": {"U0PAT"}, "text": {answer},
					"thread_ts": {tt.wantThread}}
				if !reflect.DeepEqual(confirm.Form, want) {
					t.Errorf("chat.postEphemeral form\n got %v\nwant %v", confirm.Form, want)
				}
			}
			if !strings.HasPrefix(answer, "Saved Feedback “The export button is hidden &amp; hard to find” "+tt.customer) {
				t.Errorf("confirmation %q", answer)
			}
			if tt.botToken != "" {
				info := h.stub.callsTo("/api/users.info")
				want := url.Values{"token": {"xoxb-bot"}, "user": {"U0AUTHOR"}, "include_locale": {"true"}}
				if len(info) != 1 || !reflect.DeepEqual(info[0].Form, want) {
					t.Errorf("users.info calls %+v, want one with %v", info, want)
				}
			} else if n := len(h.stub.callsTo("/api/")); n != 0 {
				t.Errorf("%d Web API calls without a bot token", n)
			}
			rec := h.recordIn(ws, answer)
			if rec.Type != core.RecordFeedback || rec.Title != "The export button is hidden & hard to find" ||
				rec.Description != plainText || rec.CustomerEmail != tt.email || rec.Source != "Slack" || rec.Reporter != "@pat" {
				t.Errorf("record %+v", rec)
			}
		})
	}
}

func TestShortcutSameMessageTwice(t *testing.T) {
	h := newHarness(t)
	ws := h.workspace("Acme", -1)
	h.start([]map[string]any{entry("acme-slack", ws, "s3cret-one")}, nil)
	form := h.shortcut("T0ACME", "U0AUTHOR", "1700000000.000200", "", "Please add SSO")
	h.post("/slack/interactions", "s3cret-one", form, nil)
	first := h.stub.wait(t, "/response/", 1)
	h.post("/slack/interactions", "s3cret-one", form, map[string]string{"X-Slack-Retry-Num": "1"})
	// Another person saving the same message later is the same message too.
	other := strings.Replace(form.Get("payload"), `"U0PAT"`, `"U0SAM"`, 1)
	h.post("/slack/interactions", "s3cret-one", url.Values{"payload": {other}}, nil)
	calls := h.stub.wait(t, "/response/", 3)
	for i, c := range calls[1:] {
		if text, _ := c.JSON["text"].(string); !strings.HasPrefix(text, "Already saved Feedback “Please add SSO”") {
			t.Errorf("save %d answered %q", i+2, text)
		}
	}
	a, b := h.recordIn(ws, first[0].JSON["text"].(string)), h.recordIn(ws, calls[2].JSON["text"].(string))
	if a.ID != b.ID || h.count(ws, core.RecordFeedback) != 1 {
		t.Errorf("records %s and %s; %d in all", a.ID, b.ID, h.count(ws, core.RecordFeedback))
	}
	// The same ts in another channel is another message.
	elsewhere := strings.Replace(form.Get("payload"), `"C0CHAN"`, `"C0OTHER"`, 1)
	h.post("/slack/interactions", "s3cret-one", url.Values{"payload": {elsewhere}}, nil)
	h.stub.wait(t, "/response/", 4)
	if n := h.count(ws, core.RecordFeedback); n != 2 {
		t.Errorf("%d records, want 2", n)
	}
}

func TestShortcutEdgeCases(t *testing.T) {
	h := newHarness(t)
	ws := h.workspace("Acme", -1)
	h.start([]map[string]any{entry("acme-slack", ws, "s3cret-one")}, nil)

	h.post("/slack/interactions", "s3cret-one", h.shortcut("T0ACME", "U0AUTHOR", "1.1", "", "  "), nil)
	if got := h.stub.wait(t, "/response/", 1)[0].JSON["text"]; got != "This message has no text to save as feedback." {
		t.Errorf("empty message answer %q", got)
	}
	long := strings.Repeat("word ", 150) + "\nsecond line"
	h.post("/slack/interactions", "s3cret-one", h.shortcut("T0ACME", "U0AUTHOR", "1.2", "", long), nil)
	rec := h.recordIn(ws, h.stub.wait(t, "/response/", 2)[1].JSON["text"].(string))
	if n := len([]rune(rec.Title)); n > core.MaxTitle || !strings.HasSuffix(rec.Title, "…") {
		t.Errorf("title of %d characters: %q", n, rec.Title)
	}
	if rec.Description != strings.TrimSpace(long) {
		t.Errorf("description lost text: %q", rec.Description)
	}
}

func TestInteractionRequests(t *testing.T) {
	h := newHarness(t)
	ws := h.workspace("Acme", -1)
	h.start([]map[string]any{entry("acme-slack", ws, "s3cret-one", "team_id", "T0ACME")}, nil)
	good := h.shortcut("T0ACME", "U0AUTHOR", "2.1", "", "Hello")
	tests := []struct {
		name   string
		secret string
		form   url.Values
		hdr    map[string]string
		status int
	}{
		{"wrong secret", "nope", good, nil, 401},
		{"missing signature", "s3cret-one", good, map[string]string{"X-Slack-Signature": ""}, 401},
		{"stale", "s3cret-one", good, map[string]string{"X-Slack-Request-Timestamp": "1500000000"}, 401},
		{"no payload", "s3cret-one", url.Values{"x": {"1"}}, nil, 400},
		{"payload not JSON", "s3cret-one", url.Values{"payload": {"{"}}, nil, 400},
		{"other interaction", "s3cret-one", payload(map[string]any{"type": "block_actions", "team": map[string]any{"id": "T0ACME"}}), nil, 200},
		{"other shortcut", "s3cret-one", payload(map[string]any{"type": "message_action", "callback_id": "other", "team": map[string]any{"id": "T0ACME"}}), nil, 200},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if status, body := h.post("/slack/interactions", tt.secret, tt.form, tt.hdr); status != tt.status {
				t.Errorf("status %d (%s), want %d", status, body, tt.status)
			}
		})
	}
	h.post("/slack/interactions", "s3cret-one", h.shortcut("T0OTHER", "U0AUTHOR", "2.2", "", "Hello"), nil)
	if got := h.stub.wait(t, "/response/", 1)[0].JSON["text"]; got != notConnected {
		t.Errorf("unknown team answer %q", got)
	}
	h.set.bg.Wait()
	if n := h.count(ws, core.RecordFeedback); n != 0 {
		t.Errorf("%d records from rejected or ignored interactions", n)
	}
}
