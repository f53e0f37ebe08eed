package e2e

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// slackRequest is a signed /feedback command as Slack sends it, signed at the given time.
func slackRequest(d *daemon, secret string, at time.Time, text string) *http.Request {
	return slackCommand(d, secret, at, "/feedback", "1.2.3", text)
}

// slackCommand is a signed slash command of user U0E2E (pat) with its own trigger id.
func slackCommand(d *daemon, secret string, at time.Time, command, trigger, text string) *http.Request {
	form := url.Values{"token": {"legacy"}, "team_id": {"T0E2E"}, "team_domain": {"e2e"}, "channel_id": {"C0E2E"},
		"user_id": {"U0E2E"}, "user_name": {"pat"}, "command": {command}, "text": {text},
		"response_url": {"https://hooks.slack.invalid/commands/1"}, "trigger_id": {trigger}}
	body := form.Encode()
	ts := strconv.FormatInt(at.Unix(), 10)
	mac := hmac.New(sha256.New, []byte(secret))
	fmt.Fprintf(mac, "v0:%s:%s", ts, body)
	req, _ := http.NewRequest("POST", d.url("/slack/commands"), strings.NewReader(body))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("X-Slack-Request-Timestamp", ts)
	req.Header.Set("X-Slack-Signature", "v0="+hex.EncodeToString(mac.Sum(nil)))
	return req
}

// No secret shows anywhere a person or a scraper can read: not in the logs (also while every connector
// fails and an upstream echoes its credentials back), not in error bodies, /metrics, GET /api/connectors,
// `config show` or `config check`. API keys are stored only as SHA-256 hashes (the database files are
// searched byte by byte). Slack requests signed outside the 5-minute window are refused.
func TestSecretsStayHidden(t *testing.T) {
	t.Parallel()
	eachStore(t, func(t *testing.T, storeURL string) {
		secrets := map[string]string{
			"slack signing secret": "e2e-signing-secret-4f1d2c3b",
			"slack bot token":      "xoxb-e2e-bot-token-77aa99",
			"imap password":        "e2e-imap-password-5c6d",
			"openai api key":       llmKey,
			"csv header":           "Bearer e2e-csv-header-token-31e",
			"csv url token":        "e2e-url-token-8b0f",
		}
		if storeURL != "" {
			u, _ := url.Parse(storeURL)
			u.User = url.UserPassword("postgres", "e2e-db-password-2a9") // trust auth ignores it; the daemon must not show it
			storeURL = u.String()
			secrets["store password"] = "e2e-db-password-2a9"
		}
		// An upstream that echoes the credentials it got back into its error body.
		echo := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			http.Error(w, "bad credentials: "+r.Header.Get("Authorization"), http.StatusInternalServerError)
		}))
		defer echo.Close()
		e := newEnv(t, storeURL, "")
		ws, key := e.workspace("Secrets")
		secrets["api key"] = key
		imapAddr := "127.0.0.1:1" // refused: the poller fails, retries, and logs why
		if a := os.Getenv("FEEDBRIDGE_TEST_IMAP_ADDR"); a != "" {
			imapAddr = a // a real server that refuses the wrong password
		}
		secretFile := filepath.Join(e.dir, "imap-password")
		if err := os.WriteFile(secretFile, []byte(secrets["imap password"]+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		e.configure(storeURL, fmt.Sprintf(`insights: {provider: openai, workers: 1, openai: {base_url: "%s/v1", api_key: %q, model: m}}
connectors:
  slack:
    - {name: s, workspace: %s, signing_secret: %q, bot_token: %q}
  email:
    - {name: m, workspace: %s, server: %q, security: none, username: feedback@example.com, password: "file:%s", poll_interval: 1s}
  csv:
    - name: c
      workspace: %s
      schedule: "@every 1s"
      url: "https://127.0.0.1:1/export.csv?token=%s"
      allow_private: true
      archive_dir: %s
      headers: {Authorization: %q}
`, echo.URL, secrets["openai api key"], ws, secrets["slack signing secret"], secrets["slack bot token"], ws, imapAddr, secretFile,
			ws, secrets["csv url token"], filepath.Join(e.dir, "archive"), secrets["csv header"]))
		d := e.start()

		// Slack: a fresh signature is served, one from outside the window either way is refused.
		resp, err := client.Do(slackRequest(d, secrets["slack signing secret"], time.Now(), "jane@acme.example Export is slow"))
		if err != nil || resp.StatusCode != 200 {
			t.Fatalf("fresh slack command: %v %v", err, resp)
		}
		resp.Body.Close()
		replays := 0
		for _, at := range []time.Time{time.Now().Add(-5*time.Minute - 30*time.Second), time.Now().Add(-time.Hour), time.Now().Add(6 * time.Minute)} {
			resp, err := client.Do(slackRequest(d, secrets["slack signing secret"], at, "replayed "+at.String()))
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			replays++
			if resp.StatusCode != 401 {
				t.Errorf("slack command signed at %v: %d, want 401", at, resp.StatusCode)
			}
		}
		resp, _ = client.Do(slackRequest(d, "not-the-secret", time.Now(), "forged"))
		if resp.StatusCode != 401 {
			t.Errorf("forged slack signature: %d", resp.StatusCode)
		}
		resp.Body.Close()

		// Make every part fail at least once, then collect what is readable.
		var bodies bytes.Buffer
		for _, r := range []struct{ method, path, key, body string }{
			{"GET", "/api/records/verify", "fbk_" + strings.Repeat("A", 40), ""},
			{"GET", "/api/records/verify", key + "x", ""},
			{"POST", "/api/records/feedback", key, `{"title":""}`},
			{"POST", "/api/records/feedback", key, `{"title":"The export to CSV times out."}`},
			{"POST", "/api/records/feedback", key, `{"title":"t","description":"Insight please."}`},
		} {
			a := ask(t, d, r.key, r.method, r.path, r.body)
			bodies.WriteString(a.body)
		}
		eventually(t, 30*time.Second, "every connector and the LLM fail once", func() bool {
			return d.logged("insights: job failed") > 0 && d.logged("csv: import failed") > 0 && d.logged("email: mailbox poll failed") > 0
		})
		for _, p := range []string{"/api/connectors", "/metrics", "/readyz", "/healthz"} {
			k := key
			if p != "/api/connectors" {
				k = ""
			}
			bodies.WriteString(ask(t, d, k, "GET", p, "").body)
		}
		show := e.cli("config", "show")
		showJSON, _, _ := e.cliCode("config", "show", "--json")
		check, _, checkErr := e.cliCode("config", "check")
		var logs bytes.Buffer
		for _, l := range d.logLines() {
			fmt.Fprintln(&logs, l)
		}
		places := map[string]string{"logs": logs.String(), "responses": bodies.String(), "config show": show + showJSON,
			"config check": check + checkErr, "serve stdout": d.stdout.String()}
		for what, secret := range secrets {
			for where, text := range places {
				if strings.Contains(text, secret) {
					t.Errorf("the %s shows in %s", what, where)
				}
			}
		}
		if !strings.Contains(show, "***") {
			t.Errorf("config show masks nothing:\n%s", show)
		}
		if storeURL == "" {
			checkKeyStorage(t, e, key)
		}
		figures(t, "secrets=%d places_searched=%d slack_replays_refused=%d leaks=0", len(secrets), len(places), replays)
	})
}

// checkKeyStorage opens the SQLite files and finds the key only as its SHA-256 hash.
func checkKeyStorage(t *testing.T, e *env, key string) {
	t.Helper()
	sum := sha256.Sum256([]byte(key))
	db := e.inspect("")
	if n := db.int(t, "SELECT count(*) FROM api_keys WHERE hash = ?", hex.EncodeToString(sum[:])); n != 1 {
		t.Errorf("no api_keys row holds the key's SHA-256 hex (%d)", n)
	}
	for _, p := range db.strings(t, "SELECT prefix FROM api_keys") {
		if len(p) > 12 {
			t.Errorf("stored key prefix %q gives away too much of the key", p)
		}
	}
	secretPart := key[len("fbk_"):]
	files, _ := filepath.Glob(filepath.Join(e.dir, "fb.db*"))
	for _, f := range files {
		fh, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		data, _ := io.ReadAll(fh)
		fh.Close()
		if bytes.Contains(data, []byte(secretPart)) || bytes.Contains(data, []byte(secretPart[len(secretPart)-20:])) {
			t.Errorf("%s holds the API key in clear", f)
		}
	}
}
