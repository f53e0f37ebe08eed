package slack

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/sirupsen/logrus"

	"github.com/feedbridge/feedbridge/connectors"
	"github.com/feedbridge/feedbridge/core"
	"github.com/feedbridge/feedbridge/internal/testkit"
	"github.com/feedbridge/feedbridge/store/sqlite"
)

// harness is a real SQLite-backed service, the connector on a real HTTP server, and a local stand-in for
// Slack's Web API and response_url that records every request feedbridge sends.
type harness struct {
	t      testing.TB
	ctx    context.Context
	dbPath string
	svc    *core.Service
	store  core.Store
	stub   *slackStub
	set    *Set
	srv    *httptest.Server
	logs   *testkit.Buffer
	// secrets that must never appear in a log line
	secrets []string
	seq     atomic.Int64
	quiet   bool // benchmarks: log warnings only
}

func newHarness(t testing.TB) *harness {
	t.Helper()
	ctx := context.Background()
	h := &harness{t: t, ctx: ctx, dbPath: filepath.Join(t.TempDir(), "feedbridge.db"), logs: &testkit.Buffer{}}
	st, err := sqlite.Open(ctx, h.dbPath)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	h.svc, h.store = core.NewService(st, core.Options{}), st
	h.stub = newSlackStub(t)
	t.Cleanup(func() {
		for _, s := range h.secrets {
			if strings.Contains(h.logs.String(), s) {
				t.Errorf("a secret appeared in the log: %q", s)
			}
		}
	})
	return h
}

// workspace creates a workspace on the pro plan with the given idea limit (-1: the plan's default).
func (h *harness) workspace(name string, ideaLimit int) core.ID {
	h.t.Helper()
	ws, err := h.svc.CreateWorkspace(h.ctx, name, core.PlanPro, ideaLimit)
	if err != nil {
		h.t.Fatal(err)
	}
	return ws.ID
}

// start builds the connector from raw entries, as the daemon would, and serves its routes.
func (h *harness) start(entries []map[string]any, tweak func(*options)) {
	h.t.Helper()
	for _, e := range entries {
		for _, k := range []string{"signing_secret", "bot_token"} {
			if v, _ := e[k].(string); v != "" {
				h.secrets = append(h.secrets, v)
			}
		}
	}
	opts := defaultOptions()
	opts.apiURL = h.stub.srv.URL + "/api/"
	opts.responseBase = h.stub.srv.URL + "/response/"
	opts.retryDelays = []time.Duration{10 * time.Millisecond, 10 * time.Millisecond, 10 * time.Millisecond}
	if tweak != nil {
		tweak(&opts)
	}
	log := logrus.New()
	log.SetOutput(h.logs)
	log.SetLevel(logrus.DebugLevel)
	if h.quiet {
		log.SetLevel(logrus.WarnLevel)
	}
	env := connectors.Env{Service: h.svc, Log: logrus.NewEntry(log), Metrics: prometheus.NewRegistry(), Now: time.Now}
	set, err := build(entries, env, opts)
	if err != nil {
		h.t.Fatal(err)
	}
	h.set = set
	mux := http.NewServeMux()
	set.Routes(mux)
	h.srv = httptest.NewServer(mux)
	h.t.Cleanup(func() {
		h.srv.Close()
		set.bg.Wait()
	})
}

func entry(name string, ws core.ID, secret string, extra ...any) map[string]any {
	e := map[string]any{"name": name, "workspace": string(ws), "signing_secret": secret}
	for i := 0; i+1 < len(extra); i += 2 {
		e[extra[i].(string)] = extra[i+1]
	}
	return e
}

// post sends a form signed with secret now; hdr adds or (with "") removes headers after signing.
func (h *harness) post(path, secret string, form url.Values, hdr map[string]string) (int, []byte) {
	h.t.Helper()
	body := form.Encode()
	req, err := http.NewRequest(http.MethodPost, h.srv.URL+path, strings.NewReader(body))
	if err != nil {
		h.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	signHeaders(req.Header, secret, time.Now(), body)
	for k, v := range hdr {
		if v == "" {
			req.Header.Del(k)
		} else {
			req.Header.Set(k, v)
		}
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		h.t.Fatal(err)
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, out
}

// commandForm is a slash command as Slack sends it, with a fresh trigger id.
func (h *harness) commandForm(team, command, text string) url.Values {
	n := h.seq.Add(1)
	return url.Values{
		"token": {"legacy-token"}, "team_id": {team}, "team_domain": {"acme"}, "channel_id": {"C0CHAN"},
		"channel_name": {"product"}, "user_id": {"U0PAT"}, "user_name": {"pat"}, "command": {command},
		"text": {text}, "api_app_id": {"A0APP"}, "is_enterprise_install": {"false"},
		"response_url": {fmt.Sprintf("%s/response/%d", h.stub.srv.URL, n)},
		"trigger_id":   {fmt.Sprintf("13345224609.738474920.%d", n)},
	}
}

// command runs a slash command signed with secret and returns the ephemeral answer's text.
func (h *harness) command(secret, team, command, text string) string {
	h.t.Helper()
	status, body := h.post("/slack/commands", secret, h.commandForm(team, command, text), nil)
	if status != http.StatusOK {
		h.t.Fatalf("%s %q: status %d: %s", command, text, status, body)
	}
	return ephemeralText(h.t, body)
}

func ephemeralText(t testing.TB, body []byte) string {
	t.Helper()
	var m struct {
		ResponseType string `json:"response_type"`
		Text         string `json:"text"`
	}
	if err := json.Unmarshal(body, &m); err != nil {
		t.Fatalf("answer is not JSON: %q", body)
	}
	if m.ResponseType != "ephemeral" {
		t.Fatalf("answer is not ephemeral: %s", body)
	}
	return m.Text
}

var idPattern = regexp.MustCompile("id `([0-9a-f]{24})`")

// recordIn reads the record an answer names.
func (h *harness) recordIn(ws core.ID, answer string) core.Record {
	h.t.Helper()
	m := idPattern.FindStringSubmatch(answer)
	if m == nil {
		h.t.Fatalf("answer names no record id: %q", answer)
	}
	rec, err := h.svc.Record(h.ctx, ws, core.ID(m[1]))
	if err != nil {
		h.t.Fatalf("record %s: %v", m[1], err)
	}
	return rec
}

// count is the number of records of a type in ws.
func (h *harness) count(ws core.ID, typ core.RecordType) int {
	h.t.Helper()
	page, err := h.svc.List(h.ctx, ws, core.ListRequest{RecordType: string(typ), Limit: "1000"})
	if err != nil {
		h.t.Fatal(err)
	}
	return len(page.Records)
}
