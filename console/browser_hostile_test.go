package console_test

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/emersion/go-imap/v2"
	"github.com/emersion/go-imap/v2/imapclient"
	"github.com/emersion/go-imap/v2/imapserver"
	"github.com/emersion/go-imap/v2/imapserver/imapmemserver"
	"github.com/sirupsen/logrus"

	"github.com/feedbridge/feedbridge/connectors"
	"github.com/feedbridge/feedbridge/connectors/csvimport"
	"github.com/feedbridge/feedbridge/connectors/email"
	"github.com/feedbridge/feedbridge/connectors/slack"
	"github.com/feedbridge/feedbridge/connectors/webhook"
	"github.com/feedbridge/feedbridge/core"
)

// TestBrowserHostileFromEveryChannel: the title <img src=x onerror=alert(1)> arrives through a CSV import,
// an email read from a real IMAP server, a signed Slack command and a signed webhook, each through its
// real connector; on the inbox and on each record page Chromium shows it as text and opens no dialog.
func TestBrowserHostileFromEveryChannel(t *testing.T) {
	e := newEnv(t, backends()["sqlite"](t))
	ws := string(e.ws.ID)
	l := logrus.New()
	l.SetOutput(e.logs)
	cenv := connectors.Env{Service: e.svc, Log: logrus.NewEntry(l)}

	// Slack and the webhook serve their routes as the daemon mounts them.
	mux := http.NewServeMux()
	sl, err := slack.Build([]map[string]any{{"name": "acme-slack", "workspace": ws, "signing_secret": "slack-signing-secret"}}, cenv)
	if err != nil {
		t.Fatal(err)
	}
	sl.(connectors.Router).Routes(mux)
	wh, err := webhook.Build([]map[string]any{{"name": "forms", "workspace": ws, "secret": "hook-secret",
		"mapping": map[string]any{"title": "title", "description": "body", "external_id": "id"}}}, cenv)
	if err != nil {
		t.Fatal(err)
	}
	wh.(connectors.Router).Routes(mux)
	hooks := httptest.NewServer(mux)
	defer hooks.Close()
	ctx, stop := context.WithCancel(t.Context())
	defer stop()
	go sl.Run(ctx)
	go wh.Run(ctx)

	// Slack escapes <, > and & in command text; the connector turns them back.
	form := url.Values{"command": {"/feedback"}, "text": {"&lt;img src=x onerror=alert(1)&gt;"}, "team_id": {"T1"},
		"channel_id": {"C1"}, "user_id": {"U1"}, "user_name": {"ann"}, "trigger_id": {"1.2.3"}}.Encode()
	ts := strconv.FormatInt(time.Now().Unix(), 10)
	mac := hmac.New(sha256.New, []byte("slack-signing-secret"))
	io.WriteString(mac, "v0:"+ts+":"+form)
	req, _ := http.NewRequest(http.MethodPost, hooks.URL+"/slack/commands", strings.NewReader(form))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("X-Slack-Request-Timestamp", ts)
	req.Header.Set("X-Slack-Signature", "v0="+hex.EncodeToString(mac.Sum(nil)))
	expectPost(t, "slack command", req, http.StatusOK)

	body := `{"id": "F-1", "title": "<img src=x onerror=alert(1)>", "body": "<img src=x onerror=alert(2)> from a form"}`
	mac = hmac.New(sha256.New, []byte("hook-secret"))
	io.WriteString(mac, body)
	req, _ = http.NewRequest(http.MethodPost, hooks.URL+"/hooks/forms", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Signature", "sha256="+hex.EncodeToString(mac.Sum(nil)))
	expectPost(t, "webhook", req, http.StatusCreated)

	// Email: a real IMAP server in the process, polled by the email connector.
	addr := imapServer(t, "feedback@example.com", "imap-pass")
	em, err := email.Build([]map[string]any{{"name": "support", "workspace": ws, "server": addr, "security": "none",
		"username": "feedback@example.com", "password": "imap-pass", "poll_interval": "1s", "idle": false}}, cenv)
	if err != nil {
		t.Fatal(err)
	}
	appendMail(t, addr, "feedback@example.com", "imap-pass", "From: Jane Roe <jane@globex.com>\r\nTo: feedback@example.com\r\n"+
		"Subject: <img src=x onerror=alert(1)>\r\nMessage-ID: <hostile-1@globex.com>\r\nDate: "+time.Now().UTC().Format(time.RFC1123Z)+
		"\r\nContent-Type: text/plain; charset=utf-8\r\n\r\nHello <img src=x onerror=alert(3)>\r\n")
	go em.Run(ctx)

	// CSV, as the scheduled import and the command line read it.
	if _, err := csvimport.Import(e.ctx, e.svc, e.ws.ID, strings.NewReader("title,description\n\""+hostile+"\",from a sheet\n"), "hostile.csv",
		csvimport.Options{}); err != nil {
		t.Fatal(err)
	}

	bySource := map[string]core.ID{}
	for deadline := time.Now().Add(20 * time.Second); len(bySource) < 4 && time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		p, err := e.svc.List(e.ctx, e.ws.ID, core.ListRequest{RecordType: "Feedback", Search: "onerror", Limit: "100"})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range p.Records {
			bySource[r.Source] = r.ID
		}
	}
	for _, src := range []string{"CSV", "Email", "Slack", "Other"} {
		if bySource[src] == "" {
			t.Fatalf("no hostile record came through %s (have %v); logs:\n%s", src, bySource, e.logs.String())
		}
	}
	for src, id := range bySource {
		if got := e.read(e.ws.ID, id).Title; got != hostile {
			t.Fatalf("%s stored the title as %q", src, got)
		}
	}

	e.member(e.ws.ID, "ann@acme.com", core.RoleEditor)
	c := startChrome(t, e.srv.URL)
	c.signIn("ann@acme.com")
	c.do("the inbox", c.shot("hostile-1-inbox"))
	for src, id := range bySource {
		c.hostileShownAsText(id, src)
		c.do("photo", c.shot("hostile-2-record-"+strings.ToLower(src)))
	}
}

func expectPost(t *testing.T, what string, req *http.Request, want int) {
	t.Helper()
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	if res.StatusCode != want {
		t.Fatalf("%s: %d %s", what, res.StatusCode, b)
	}
}

// imapServer serves one user's INBOX from memory over plain IMAP on loopback.
func imapServer(t *testing.T, user, pass string) string {
	t.Helper()
	u := imapmemserver.NewUser(user, pass)
	if err := u.Create("INBOX", nil); err != nil {
		t.Fatal(err)
	}
	mem := imapmemserver.New()
	mem.AddUser(u)
	srv := imapserver.New(&imapserver.Options{
		NewSession: func(*imapserver.Conn) (imapserver.Session, *imapserver.GreetingData, error) {
			return mem.NewSession(), nil, nil
		},
		Caps:         imap.CapSet{imap.CapIMAP4rev1: {}, imap.CapUIDPlus: {}, imap.CapMove: {}},
		InsecureAuth: true,
		Logger:       log.New(io.Discard, "", 0),
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return ln.Addr().String()
}

// appendMail delivers a message with APPEND, as a mail server's delivery agent would.
func appendMail(t *testing.T, addr, user, pass, raw string) {
	t.Helper()
	c, err := imapclient.DialInsecure(addr, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.Login(user, pass).Wait(); err != nil {
		t.Fatal(err)
	}
	cmd := c.Append("INBOX", int64(len(raw)), nil)
	if _, err := io.WriteString(cmd, raw); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := cmd.Wait(); err != nil {
		t.Fatal(fmt.Errorf("append: %w", err))
	}
}
