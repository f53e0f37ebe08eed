package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/feedbridge/feedbridge/internal/notifytest"
)

// Closing the loop through the real daemon: a Slack user files /idea and a colleague forwards a customer's
// mail; an editor links the mail's feedback to the idea and moves the idea to Planned. The Slack stand-in
// receives exactly one chat.postMessage (a DM to the person who ran the command) and the SMTP server
// exactly one message, to the colleague and never to the customer; moving to Planned again sends nothing
// new; a message Slack keeps refusing is retried and then kept as failed, listed by `events failed`; a
// reload that drops a status stops its messages. No secret reaches a log line.
func TestNotifyClosesTheLoop(t *testing.T) {
	eachStore(t, func(t *testing.T, storeURL string) {
		secrets := map[string]string{"signing": "e2e-notify-signing-3a7c", "bot": "xoxb-e2e-notify-bot-91be",
			"smtp": "e2e-notify-smtp-pass-d04f", "imap": "e2e-imap-pass"}
		ok := notifytest.Answer{Status: 200, Body: `{"ok":true}`}
		// Slack answers the first post and fails from the second on.
		slack := notifytest.NewSlack(t, ok, notifytest.Answer{Status: 500, Body: "down"})
		mailer, _ := notifytest.NewSMTP(t, "none", "fb-user", secrets["smtp"])
		imap := startIMAP(t)

		e := newEnv(t, storeURL, "")
		ws, key := e.workspace("Acme")
		conf := func(statuses string) string {
			return fmt.Sprintf(`console: {public_url: "https://fb.example"}
connectors:
  slack:
    - {name: acme-slack, workspace: %s, signing_secret: %q, bot_token: %q, api_url: %q}
  email:
    - {name: support, workspace: %s, server: %q, security: none, username: %s, password: %q, mailbox: INBOX,
       processed_mailbox: Processed, poll_interval: 1s, internal_domains: [example.com]}
notify:
  statuses: %s
  retry_for: 4s
  smtp: {server: %q, security: none, username: fb-user, password: %q, from: feedback@example.com, allow_private: true}
`, ws, secrets["signing"], secrets["bot"], slack.URL()+"/api/", ws, imap.addr, imap.user, imap.pass, statuses, mailer.Addr, secrets["smtp"])
		}
		e.configure(storeURL, conf("[Planned, In progress, Done, Released, Declined]"))
		d := e.start()

		resp, err := client.Do(slackCommand(d, secrets["signing"], time.Now(), "/idea", "4.5.6", "Dark mode for the dashboard"))
		if err != nil || resp.StatusCode != 200 {
			t.Fatalf("/idea: %v %v", err, resp)
		}
		resp.Body.Close()
		forward(t, imap)

		var idea, fb record
		eventually(t, 30*time.Second, "the idea and the forwarded mail are records", func() bool {
			idea, fb = findRecord(t, d, key, "Idea", "Dark mode for the dashboard"), findRecord(t, d, key, "Feedback", "Please add a dark mode")
			return idea.ID != "" && fb.ID != ""
		})
		if fb.CustomerEmail != "jane@customer.example" || fb.Reporter != "agent@example.com" {
			t.Fatalf("forwarded mail: customer %q, reporter %q", fb.CustomerEmail, fb.Reporter)
		}
		if a := ask(t, d, key, "PUT", "/api/records/"+fb.ID+"/links/"+idea.ID, ""); a.status != 200 {
			t.Fatalf("link: %d %s", a.status, a.body)
		}
		move := func(status string) {
			t.Helper()
			if a := ask(t, d, key, "PATCH", "/api/records/"+idea.ID, `{"status":"`+status+`"}`); a.status != 200 {
				t.Fatalf("move to %s: %d %s", status, a.status, a.body)
			}
		}
		move("Planned")

		posts := func() []notifytest.SlackCall {
			var out []notifytest.SlackCall
			for _, c := range slack.Calls() {
				if strings.HasSuffix(c.Path, "/chat.postMessage") {
					out = append(out, c)
				}
			}
			return out
		}
		eventually(t, 20*time.Second, "a Slack post and a mail", func() bool { return len(posts()) == 1 && len(mailer.Mails()) == 1 })
		link := "https://fb.example/records/" + idea.ID
		want := notifytest.SlackCall{Path: "/api/chat.postMessage", Auth: "Bearer " + secrets["bot"],
			ContentType: "application/json; charset=utf-8", Body: map[string]any{"channel": "U0E2E",
				"text":         "Update on the idea you brought to us: “Dark mode for the dashboard” is now Planned.\n" + link,
				"unfurl_links": false, "unfurl_media": false}}
		if got := posts()[0]; fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("Slack received\n%+v\nwant\n%+v", got, want)
		}
		m := mailer.Mails()[0]
		if m.To != "agent@example.com" || m.From != "feedback@example.com" || m.User != "fb-user" ||
			!strings.Contains(m.Data, "is now Planned") || !strings.Contains(m.Data, link) {
			t.Fatalf("mail: %+v", m)
		}

		move("Under review")
		move("Planned")
		time.Sleep(3 * time.Second) // the workers poll every second: anything queued would have gone by now
		if n, mails := len(posts()), len(mailer.Mails()); n != 1 || mails != 1 {
			t.Fatalf("a second move to Planned sent more: %d posts, %d mails", n, mails)
		}

		move("Done")
		eventually(t, 20*time.Second, "the Done mail", func() bool { return len(mailer.Mails()) == 2 })
		var failed []struct {
			Subscriber, Type, Record string
			LastError                string `json:"last_error"`
			Attempts                 int
		}
		eventually(t, 60*time.Second, "the Slack message kept as failed", func() bool {
			out, _, _ := e.cliCode("events", "failed", "--json")
			failed = nil
			_ = json.Unmarshal([]byte(out), &failed)
			return len(failed) == 1
		})
		if f := failed[0]; f.Subscriber != "notify:slack" || f.Type != "notify" || f.Record != idea.ID || f.Attempts < 2 ||
			!strings.Contains(f.LastError, "status 500") {
			t.Fatalf("events failed: %+v", failed)
		}
		// A reload that leaves Declined out: moving there tells nobody any more.
		e.configure(storeURL, conf("[Released]"))
		applied := d.logged("reload: configuration applied")
		d.cmd.Process.Signal(syscall.SIGHUP)
		eventually(t, 20*time.Second, "the reload", func() bool { return d.logged("reload: configuration applied") > applied })
		move("Declined")
		time.Sleep(3 * time.Second)
		if n := len(mailer.Mails()); n != 2 {
			t.Fatalf("%d mails after a move to a status the reloaded configuration leaves out, want 2", n)
		}

		metrics := ask(t, d, "", "GET", "/metrics", "").body
		for _, line := range []string{`feedbridge_notifications_total{channel="slack",outcome="done"} 1`,
			`feedbridge_notifications_total{channel="slack",outcome="failed"} 1`,
			`feedbridge_notifications_total{channel="email",outcome="done"} 2`} {
			if !strings.Contains(metrics, line) {
				t.Errorf("/metrics lacks %s", line)
			}
		}
		for _, m := range mailer.Mails() {
			if m.To != "agent@example.com" {
				t.Fatalf("a mail went to %s: customers are not written to unless notify.customers is on", m.To)
			}
		}

		var logs bytes.Buffer
		for _, l := range d.logLines() {
			fmt.Fprintln(&logs, l)
		}
		show := e.cli("config", "show")
		for what, s := range secrets {
			if strings.Contains(logs.String(), s) || strings.Contains(show, s) {
				t.Errorf("the %s secret shows in the logs or config show", what)
			}
		}
	})
}

type record struct {
	ID            string `json:"id"`
	Title         string `json:"title"`
	CustomerEmail string `json:"customer_email"`
	Reporter      string `json:"reporter"`
}

// findRecord is the record of typ titled title, or a zero record.
func findRecord(t *testing.T, d *daemon, key, typ, title string) record {
	t.Helper()
	var recs []record
	do(t, "GET", d.url("/api/records?"+url.Values{"record_type": {typ}, "limit": {"100"}}.Encode()), key, "", &recs)
	for _, r := range recs {
		if r.Title == title {
			return r
		}
	}
	return record{}
}

// forward puts a colleague's Gmail-style forward of a customer's mail into the inbox.
func forward(t *testing.T, m *memIMAP) {
	t.Helper()
	appendRaw(t, m, "From: Agent <agent@example.com>\r\nTo: "+m.user+"\r\nSubject: Fwd: Please add a dark mode\r\n"+
		"Message-ID: <fwd-dark@e2e.test>\r\nDate: Mon, 23 Nov 2026 10:00:00 +0000\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n"+
		"FYI\r\n\r\n---------- Forwarded message ---------\r\nFrom: Jane Doe <jane@customer.example>\r\n"+
		"Date: Mon, 23 Nov 2026 at 09:00\r\nSubject: Please add a dark mode\r\nTo: <agent@example.com>\r\n\r\n"+
		"The dashboard is too bright at night.\r\n")
}
