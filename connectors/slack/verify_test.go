package slack

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	slackgo "github.com/slack-go/slack"

	"github.com/feedbridge/feedbridge/connectors"
)

// signHeaders sets Slack's v0 signature headers for body, as Slack computes them.
func signHeaders(h http.Header, secret string, at time.Time, body string) {
	ts := strconv.FormatInt(at.Unix(), 10)
	mac := hmac.New(sha256.New, []byte(secret))
	fmt.Fprintf(mac, "v0:%s:%s", ts, body)
	h.Set("X-Slack-Request-Timestamp", ts)
	h.Set("X-Slack-Signature", "v0="+hex.EncodeToString(mac.Sum(nil)))
}

// verifyServer answers "matched=<indexes> team=<team_id>" for a verified slash command, 401 otherwise,
// so the tests see what the real handlers would see after verification.
func verifyServer(t *testing.T, secrets []connectors.Secret) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, matched, err := verifyBody(w, r, secrets, connectors.NewGuard(nil), nil)
		switch {
		case errors.Is(err, errTooLarge):
			http.Error(w, err.Error(), http.StatusRequestEntityTooLarge)
			return
		case err != nil:
			http.Error(w, err.Error(), http.StatusUnauthorized)
			return
		}
		cmd, err := slackgo.SlashCommandParse(r)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		fmt.Fprintf(w, "matched=%v team=%s text=%s", matched, cmd.TeamID, cmd.Text)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestVerifyBody(t *testing.T) {
	secrets := []connectors.Secret{"secret-a", "secret-b", "secret-a"}
	srv := verifyServer(t, secrets)
	body := url.Values{"team_id": {"T1"}, "text": {"Dark mode"}, "command": {"/idea"}}.Encode()
	now := time.Now()
	tests := []struct {
		name     string
		body     string
		prepare  func(h http.Header)
		status   int
		response string
	}{
		{"secret a matches both entries", body, func(h http.Header) { signHeaders(h, "secret-a", now, body) },
			200, "matched=[0 2] team=T1 text=Dark mode"},
		{"secret b", body, func(h http.Header) { signHeaders(h, "secret-b", now, body) }, 200, "matched=[1] team=T1"},
		{"4 minutes old", body, func(h http.Header) { signHeaders(h, "secret-b", now.Add(-4*time.Minute), body) }, 200, "matched=[1]"},
		{"unknown secret", body, func(h http.Header) { signHeaders(h, "other", now, body) }, 401, "invalid request signature"},
		{"tampered body", strings.Replace(body, "Dark", "Dork", 1), func(h http.Header) { signHeaders(h, "secret-a", now, body) },
			401, "invalid request signature"},
		{"stale timestamp", body, func(h http.Header) { signHeaders(h, "secret-a", now.Add(-6*time.Minute), body) },
			401, "more than 5 minutes"},
		{"future timestamp", body, func(h http.Header) { signHeaders(h, "secret-a", now.Add(6*time.Minute), body) },
			401, "more than 5 minutes"},
		{"no headers", body, func(h http.Header) {}, 401, "missing"},
		{"no signature", body, func(h http.Header) {
			signHeaders(h, "secret-a", now, body)
			h.Del("X-Slack-Signature")
		}, 401, "missing"},
		{"no timestamp", body, func(h http.Header) {
			signHeaders(h, "secret-a", now, body)
			h.Del("X-Slack-Request-Timestamp")
		}, 401, "missing"},
		{"timestamp changed after signing", body, func(h http.Header) {
			signHeaders(h, "secret-a", now, body)
			h.Set("X-Slack-Request-Timestamp", strconv.FormatInt(now.Unix()-1, 10))
		}, 401, "invalid request signature"},
		{"timestamp not a number", body, func(h http.Header) {
			signHeaders(h, "secret-a", now, body)
			h.Set("X-Slack-Request-Timestamp", "yesterday")
		}, 401, "invalid request signature"},
		{"signature without v0", body, func(h http.Header) {
			signHeaders(h, "secret-a", now, body)
			h.Set("X-Slack-Signature", strings.TrimPrefix(h.Get("X-Slack-Signature"), "v0="))
		}, 401, "invalid request signature"},
		{"signature not hex", body, func(h http.Header) {
			h.Set("X-Slack-Signature", "v0=zz")
			h.Set("X-Slack-Request-Timestamp", strconv.FormatInt(now.Unix(), 10))
		},
			401, "invalid request signature"},
		{"body too large", strings.Repeat("a", maxBody+1), func(h http.Header) { signHeaders(h, "secret-a", now, "") },
			413, "too large"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, err := http.NewRequest(http.MethodPost, srv.URL, strings.NewReader(tt.body))
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			tt.prepare(req.Header)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			got, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != tt.status || !strings.Contains(string(got), tt.response) {
				t.Errorf("status %d body %q, want %d containing %q", resp.StatusCode, got, tt.status, tt.response)
			}
			if resp.StatusCode == 401 && strings.Contains(string(got), "secret-") {
				t.Errorf("a secret leaked into the answer: %q", got)
			}
		})
	}
}
