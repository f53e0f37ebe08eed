package e2e

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Forged mail, through a real IMAP server into the running daemon. With authserv_id set, a forged
// colleague's forward credits nobody inside it — with no Authentication-Results at all, or with a pass for the
// forger's own domain — while the authenticated one does; and a forger who sends first with a customer's
// From and the Message-ID of the real message does not make the real one a duplicate. Without authserv_id,
// `config check` warns.
func TestHostileForgedMail(t *testing.T) {
	t.Parallel()
	e := newEnv(t, "", "insights: {provider: \"off\"}\n")
	ws, _ := e.workspace("ForgedMail")
	imapSrv := startIMAP(t)
	entry := func(extra string) string {
		return "insights: {provider: \"off\"}\nconnectors:\n  email:\n" +
			strings.Replace(imapSrv.entry("inbox", ws, "forged"), "poll_interval: 1s}", "poll_interval: 1s, internal_domains: [example.com]"+extra+"}", 1)
	}
	e.configure("", entry(""))
	if out, code, _ := e.cliCode("config", "check"); code != 0 || !strings.Contains(out, "authserv_id is not set") {
		t.Errorf("config check without authserv_id: exit %d, want 0 and a warning:\n%s", code, out)
	}
	e.configure("", entry(", authserv_id: mx.example.com"))
	if out, code, _ := e.cliCode("config", "check"); code != 0 || strings.Contains(out, "warning") {
		t.Errorf("config check with authserv_id: exit %d\n%s", code, out)
	}

	forward := func(auth, subject string) string {
		if auth != "" {
			auth = "Authentication-Results: " + auth + "\r\n"
		}
		return auth + "From: Alice <alice@example.com>\r\nTo: " + imapSrv.user + "\r\nSubject: Fwd: " + subject + "\r\n" +
			"Message-ID: <" + strings.ReplaceAll(subject, " ", "-") + "@example.com>\r\nDate: Mon, 23 Nov 2026 10:00:00 +0000\r\n" +
			"Content-Type: text/plain; charset=utf-8\r\n\r\nPlease log this.\r\n\r\n---------- Forwarded message ---------\r\n" +
			"From: Big Boss <ceo@bigcustomer.example>\r\nDate: Mon, Nov 23, 2026 at 9:02 AM\r\nSubject: " + subject + "\r\n" +
			"To: <support@example.com>\r\n\r\nCancel our contract today.\r\n"
	}
	direct := func(body string) string {
		return "From: Carol <carol@customer.example>\r\nTo: " + imapSrv.user + "\r\nSubject: Export is slow\r\n" +
			"Message-ID: <export-slow-1@customer.example>\r\nDate: Mon, 23 Nov 2026 11:00:00 +0000\r\n" +
			"Content-Type: text/plain; charset=utf-8\r\n\r\n" + body + "\r\n"
	}
	appendRaw(t, imapSrv,
		forward("", "Forged without results"),
		forward("mx.example.com; spf=pass smtp.mailfrom=mallory@evil.example; dmarc=none header.from=example.com", "Forged with a pass of its own"),
		forward("mx.example.com; dkim=pass header.d=example.com; spf=pass smtp.mailfrom=alice@example.com; dmarc=pass header.from=example.com", "Authenticated forward"),
		direct("Cancel everything, we are leaving."), // the forger, first
		direct("The export takes ten minutes since Monday."),
	)
	d := e.start()
	eventually(t, 30*time.Second, "every message recorded", func() bool {
		return db(e).int(t, "SELECT count(*) FROM records") == 5
	})
	got := map[string]string{}
	for _, row := range db(e).strings(t, "SELECT title || '|' || customer_email || '|' || description FROM records") {
		parts := strings.SplitN(row, "|", 3)
		got[parts[0]+"|"+parts[1]] += parts[2]
	}
	for _, want := range []string{
		"Forged without results|alice@example.com",
		"Forged with a pass of its own|alice@example.com",
		"Authenticated forward|ceo@bigcustomer.example",
	} {
		if _, ok := got[want]; !ok {
			t.Errorf("no record %q among %v", want, got)
		}
	}
	if c := got["Export is slow|carol@customer.example"]; !strings.Contains(c, "ten minutes") || !strings.Contains(c, "leaving") {
		t.Errorf("the real message after a forger with its Message-ID and From: %q, want both texts recorded", c)
	}
	if n := d.logged("colleague's address not trusted"); n != 2 {
		t.Errorf("%d forged colleagues logged, want 2", n)
	}
	if code := d.stop(t, syscall.SIGTERM); code != 0 {
		t.Errorf("exit code %d", code)
	}
}

// appendRaw puts raw messages into the server's INBOX, in order.
func appendRaw(t *testing.T, m *memIMAP, msgs ...string) {
	t.Helper()
	c := m.client(t)
	defer c.Close()
	for _, raw := range msgs {
		cmd := c.Append("INBOX", int64(len(raw)), nil)
		if _, err := io.Copy(cmd, bytes.NewReader([]byte(raw))); err != nil {
			t.Fatal(err)
		}
		if err := cmd.Close(); err != nil {
			t.Fatal(err)
		}
		if _, err := cmd.Wait(); err != nil {
			t.Fatal(fmt.Errorf("append: %w", err))
		}
	}
}
