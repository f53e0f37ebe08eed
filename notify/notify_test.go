package notify

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"mime/quotedprintable"
	"net/mail"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/emersion/go-smtp"

	"github.com/feedbridge/feedbridge/config"
	"github.com/feedbridge/feedbridge/connectors/slack"
	"github.com/feedbridge/feedbridge/core"
	"github.com/feedbridge/feedbridge/internal/notifytest"
	"github.com/feedbridge/feedbridge/internal/queueworker"
	"github.com/feedbridge/feedbridge/store/sqlite"
)

const (
	botToken     = "xoxb-notify-test-token-5e1f"
	smtpPassword = "smtp-notify-test-password-9c2d"
	ideaID       = core.ID("6744a1b2c3d4e5f601020304")
)

func notice(n core.Notice) core.QueueItem {
	n.Record, n.RecordType, n.Title, n.Status = ideaID, core.RecordIdea, "Dark mode <b>& more</b>", "Planned"
	n.Link = "https://fb.example/records/" + string(ideaID)
	body, _ := json.Marshal(n)
	q := core.NotifyQueueSlack
	if n.Channel == core.OriginEmail {
		q = core.NotifyQueueEmail
	}
	return core.QueueItem{ID: core.NewID(), Queue: q, Kind: core.NotifyKind, Workspace: "6744a1b2c3d4e5f6010203ff", Body: body}
}

func answer(status int, body, retryAfter string) notifytest.Answer {
	return notifytest.Answer{Status: status, Body: body, RetryAfter: retryAfter}
}

func slackNotifier(stub *notifytest.Slack) *Notifier {
	return New(Settings{Slack: map[string]slack.Poster{"acme": {Token: botToken, APIURL: stub.URL() + "/api/"}}}, Options{})
}

const wantSlackText = "Update on the idea you brought to us: “Dark mode &lt;b&gt;&amp; more&lt;/b&gt;” is now Planned.\n" +
	"https://fb.example/records/" + string(ideaID)

func TestSlackThreadReplyAndDM(t *testing.T) {
	stub := notifytest.NewSlack(t)
	n := slackNotifier(stub)
	ctx := t.Context()
	if err := n.Handle(ctx, notice(core.Notice{Channel: core.OriginSlack, Entry: "acme", User: "U2", Chat: "C9", Thread: "1700000000.000100"})); err != nil {
		t.Fatal(err)
	}
	if err := n.Handle(ctx, notice(core.Notice{Channel: core.OriginSlack, Entry: "acme", User: "U1"})); err != nil {
		t.Fatal(err)
	}
	want := []notifytest.SlackCall{
		{Path: "/api/chat.postMessage", Auth: "Bearer " + botToken, ContentType: "application/json; charset=utf-8",
			Body: map[string]any{"channel": "C9", "thread_ts": "1700000000.000100", "text": wantSlackText, "unfurl_links": false, "unfurl_media": false}},
		{Path: "/api/chat.postMessage", Auth: "Bearer " + botToken, ContentType: "application/json; charset=utf-8",
			Body: map[string]any{"channel": "U1", "text": wantSlackText, "unfurl_links": false, "unfurl_media": false}},
	}
	if got := stub.Calls(); !reflect.DeepEqual(got, want) {
		t.Fatalf("Slack received\n%#v\nwant\n%#v", got, want)
	}
}

func TestSlackThreadGoneFallsBackToDM(t *testing.T) {
	stub := notifytest.NewSlack(t, answer(200, `{"ok":false,"error":"not_in_channel"}`, ""), answer(200, `{"ok":true}`, ""))
	if err := slackNotifier(stub).Handle(t.Context(), notice(core.Notice{Channel: core.OriginSlack, Entry: "acme", User: "U2", Chat: "C9", Thread: "1.2"})); err != nil {
		t.Fatal(err)
	}
	calls := stub.Calls()
	if len(calls) != 2 || calls[0].Body["channel"] != "C9" || calls[1].Body["channel"] != "U2" || calls[1].Body["thread_ts"] != nil {
		t.Fatalf("want a thread reply then a DM to U2, got %+v", calls)
	}
}

// settled is what a queue worker did with the one item it handled.
type settled struct {
	outcome    queueworker.Outcome
	retryAfter time.Duration
	err        error
}

type observer chan settled

func (o observer) Settled(_ core.QueueItem, out queueworker.Outcome, err error, _ time.Duration) {
	o <- settled{outcome: out, err: err}
}

// runOne enqueues it in a real SQLite store, lets a queue worker handle it once with n and returns the
// outcome, with the wait the handler asked for, and the store.
func runOne(t *testing.T, n *Notifier, it core.QueueItem) (settled, core.Store) {
	t.Helper()
	st, err := sqlite.Open(t.Context(), filepath.Join(t.TempDir(), "fb.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	if err := st.EnqueueItems(t.Context(), []core.QueueItem{it}); err != nil {
		t.Fatal(err)
	}
	obs := make(observer, 1)
	asked := make(chan time.Duration, 1)
	w, err := queueworker.New(st, n.Handle, queueworker.Config{Queue: it.Queue, Holder: "test", Observer: obs, Poll: 10 * time.Millisecond,
		Delay: func(_ int, ra time.Duration) time.Duration { asked <- ra; return time.Hour }})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan struct{})
	go func() { w.Run(ctx); close(done) }()
	defer func() { cancel(); <-done }()
	select {
	case s := <-obs:
		select {
		case s.retryAfter = <-asked:
		default:
		}
		return s, st
	case <-time.After(20 * time.Second):
		t.Fatal("the worker settled nothing")
	}
	return settled{}, nil
}

func TestSlackFailuresAreRetriedOrKept(t *testing.T) {
	tests := []struct {
		name       string
		answer     notifytest.Answer
		want       queueworker.Outcome
		retryAfter time.Duration
	}{
		{"rate limited", answer(429, `{"ok":false,"error":"ratelimited"}`, "7"), queueworker.Retried, 7 * time.Second},
		{"server error", answer(502, "bad gateway", ""), queueworker.Retried, 0},
		{"slack hiccup", answer(200, `{"ok":false,"error":"internal_error"}`, ""), queueworker.Retried, 0},
		{"token revoked", answer(200, `{"ok":false,"error":"token_revoked"}`, ""), queueworker.Failed, 0},
		{"unknown user", answer(200, `{"ok":false,"error":"user_not_found"}`, ""), queueworker.Failed, 0},
		{"not found", answer(404, "no such method", ""), queueworker.Failed, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stub := notifytest.NewSlack(t, tt.answer)
			got, _ := runOne(t, slackNotifier(stub), notice(core.Notice{Channel: core.OriginSlack, Entry: "acme", User: "U1"}))
			if got.outcome != tt.want || got.retryAfter != tt.retryAfter {
				t.Fatalf("outcome %s after %v (%v), want %s after %v", got.outcome, got.retryAfter, got.err, tt.want, tt.retryAfter)
			}
			if strings.Contains(got.err.Error(), botToken) {
				t.Fatalf("the error kept on the item shows the token: %v", got.err)
			}
		})
	}
}

func TestFailedMessageIsKeptAndListed(t *testing.T) {
	stub := notifytest.NewSlack(t, answer(503, "down", ""))
	it := notice(core.Notice{Channel: core.OriginSlack, Entry: "acme", User: "U1"})
	it.RetryFor = time.Millisecond // the first failure is already past its give-up time
	got, st := runOne(t, slackNotifier(stub), it)
	if got.outcome != queueworker.Failed {
		t.Fatalf("outcome %s, want failed", got.outcome)
	}
	svc := core.NewService(st, core.Options{})
	failed, err := svc.FailedEvents(t.Context(), "")
	if err != nil {
		t.Fatal(err)
	}
	if len(failed) != 1 || failed[0].ID != it.ID || failed[0].Type != core.NotifyKind || failed[0].Subscriber != core.NotifyQueueSlack ||
		failed[0].Record != ideaID || !strings.Contains(failed[0].LastError, "status 503") {
		t.Fatalf("events failed lists %+v", failed)
	}
	if n, err := svc.RetryEvents(t.Context(), "", it.ID); err != nil || n != 1 {
		t.Fatalf("retry: %d, %v", n, err)
	}
}

func TestSlackEntryGoneKeepsTheMessage(t *testing.T) {
	n := New(Settings{}, Options{})
	got, _ := runOne(t, n, notice(core.Notice{Channel: core.OriginSlack, Entry: "acme", User: "U1"}))
	if got.outcome != queueworker.Failed || !strings.Contains(got.err.Error(), `slack entry "acme"`) {
		t.Fatalf("outcome %s (%v)", got.outcome, got.err)
	}
}

func mailNotifier(addr, security, user string, tc *tls.Config) *Notifier {
	return New(Settings{Notify: config.Notify{SMTP: config.NotifySMTP{Server: addr, Security: security, Username: user,
		Password: smtpPassword, From: "feedback@example.com", AllowPrivate: true}}}, Options{TLS: tc,
		Now: func() time.Time { return time.Date(2026, 11, 27, 4, 0, 0, 0, time.UTC) }})
}

func TestEmailThroughEachSecurity(t *testing.T) {
	for _, tt := range []struct {
		security, user string
		tls            bool
	}{
		{"starttls", "fb-user", true},
		{"tls", "fb-user", true},
		{"none", "", false},
	} {
		t.Run(tt.security, func(t *testing.T) {
			stub, tc := notifytest.NewSMTP(t, tt.security, tt.user, smtpPassword)
			it := notice(core.Notice{Channel: core.OriginEmail, Entry: "support", To: "agent@example.com"})
			if err := mailNotifier(stub.Addr, tt.security, tt.user, tc).Handle(t.Context(), it); err != nil {
				t.Fatal(err)
			}
			mails := stub.Mails()
			if len(mails) != 1 {
				t.Fatalf("%d mails, want 1", len(mails))
			}
			m := mails[0]
			if m.From != "feedback@example.com" || m.To != "agent@example.com" || m.User != tt.user || m.TLS != tt.tls ||
				m.Helo != heloName("feedback@example.com") || m.Helo == "localhost" {
				t.Fatalf("mail envelope %+v", m)
			}
			checkMail(t, m.Data, it.ID)
		})
	}
}

// checkMail reads the message as a mail client does and compares its headers and text.
func checkMail(t *testing.T, data string, id core.ID) {
	t.Helper()
	msg, err := mail.ReadMessage(strings.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	subject, err := new(mime.WordDecoder).DecodeHeader(msg.Header.Get("Subject"))
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(quotedprintable.NewReader(msg.Body))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{"From": msg.Header.Get("From"), "To": msg.Header.Get("To"), "Subject": subject,
		"Message-ID": msg.Header.Get("Message-ID"), "Auto-Submitted": msg.Header.Get("Auto-Submitted"),
		"Content-Type": msg.Header.Get("Content-Type"), "Date": msg.Header.Get("Date"),
		"body": strings.ReplaceAll(string(body), "\r\n", "\n")}
	want := map[string]string{"From": "feedback@example.com", "To": "agent@example.com",
		"Subject": "“Dark mode <b>& more</b>” is now Planned", "Message-ID": fmt.Sprintf("<%s@example.com>", id),
		"Auto-Submitted": "auto-generated", "Content-Type": "text/plain; charset=utf-8", "Date": "Fri, 27 Nov 2026 04:00:00 +0000",
		"body": "Hello,\n\nUpdate on the idea you brought to us: “Dark mode <b>& more</b>” is now Planned.\n\n" +
			"See it here: https://fb.example/records/" + string(ideaID) + "\n\nThank you for passing it on.\n"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("mail reads\n%q\nwant\n%q", got, want)
	}
}

func TestEmailRefusals(t *testing.T) {
	t.Run("starttls not offered", func(t *testing.T) {
		stub, tc := notifytest.NewSMTP(t, "none", "", "")
		got, _ := runOne(t, mailNotifier(stub.Addr, "starttls", "", tc), notice(core.Notice{Channel: core.OriginEmail, To: "a@example.com"}))
		if got.outcome != queueworker.Failed || !strings.Contains(got.err.Error(), "STARTTLS") || len(stub.Mails()) != 0 {
			t.Fatalf("outcome %s (%v), %d mails", got.outcome, got.err, len(stub.Mails()))
		}
	})
	t.Run("wrong password", func(t *testing.T) {
		stub, tc := notifytest.NewSMTP(t, "starttls", "fb-user", "another-password")
		got, _ := runOne(t, mailNotifier(stub.Addr, "starttls", "fb-user", tc), notice(core.Notice{Channel: core.OriginEmail, To: "a@example.com"}))
		if got.outcome != queueworker.Failed || strings.Contains(got.err.Error(), smtpPassword) || len(stub.Mails()) != 0 {
			t.Fatalf("outcome %s (%v), %d mails", got.outcome, got.err, len(stub.Mails()))
		}
	})
	t.Run("recipient refused for now", func(t *testing.T) {
		stub, tc := notifytest.NewSMTP(t, "starttls", "", "")
		stub.Refuse(&smtp.SMTPError{Code: 451, Message: "try again later"})
		got, _ := runOne(t, mailNotifier(stub.Addr, "starttls", "", tc), notice(core.Notice{Channel: core.OriginEmail, To: "a@example.com"}))
		if got.outcome != queueworker.Retried {
			t.Fatalf("outcome %s (%v), want retried", got.outcome, got.err)
		}
	})
	t.Run("private address without allow_private", func(t *testing.T) {
		stub, tc := notifytest.NewSMTP(t, "starttls", "", "")
		n := mailNotifier(stub.Addr, "starttls", "", tc)
		s := *n.cur.Load()
		s.Notify.SMTP.AllowPrivate = false
		n.Apply(s)
		err := n.Handle(t.Context(), notice(core.Notice{Channel: core.OriginEmail, To: "a@example.com"}))
		if err == nil || !strings.Contains(err.Error(), "refusing to connect to 127.0.0.1") || len(stub.Mails()) != 0 {
			t.Fatalf("sent to a loopback server without allow_private: %v", err)
		}
	})
}

func TestPolicyFromSettings(t *testing.T) {
	s := Settings{Notify: config.Notify{Statuses: []string{"in progress", "InProgress", "released", "Bogus"}, Customers: true,
		RetryFor: time.Hour, SMTP: config.NotifySMTP{Server: "smtp.example.com:587"}},
		PublicURL: "https://fb.example", Slack: map[string]slack.Poster{"acme": {Token: "x"}}}
	want := &core.NotifyPolicy{Statuses: []string{"In progress", "Released"}, Customers: true, Email: true,
		SlackEntries: map[string]bool{"acme": true}, PublicURL: "https://fb.example", RetryFor: time.Hour}
	if got := s.Policy(); !reflect.DeepEqual(got, want) {
		t.Fatalf("policy %+v, want %+v", got, want)
	}
	if p := (Settings{}).Policy(); p.Email || len(p.SlackEntries) != 0 || len(p.Statuses) != 0 {
		t.Fatalf("empty settings reach someone: %+v", p)
	}
}
