package webhook

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sirupsen/logrus"

	"github.com/feedbridge/feedbridge/connectors"
	"github.com/feedbridge/feedbridge/core"
	"github.com/feedbridge/feedbridge/internal/testkit"
	"github.com/feedbridge/feedbridge/store/sqlite"
)

// harness is a real service (SQLite unless a test opens another store) with the connector's routes on a
// real HTTP server.
type harness struct {
	t     testing.TB
	ctx   context.Context
	open  func() core.Store // opens the same data again on each call
	st    core.Store
	svc   *core.Service
	ws    core.ID
	set   *Set
	srv   *httptest.Server
	logs  *testkit.Buffer
	stops []func() // ends the running Set and closes the store, in that order
}

func newHarness(t testing.TB) *harness {
	t.Helper()
	path := filepath.Join(t.TempDir(), "feedbridge.db")
	return newHarnessOn(t, func() core.Store {
		st, err := sqlite.Open(context.Background(), path)
		if err != nil {
			t.Fatal(err)
		}
		return st
	})
}

// newHarnessOn runs on the store open returns, with a fresh workspace.
func newHarnessOn(t testing.TB, open func() core.Store) *harness {
	t.Helper()
	h := &harness{t: t, ctx: context.Background(), open: open, logs: &testkit.Buffer{}}
	h.connect()
	t.Cleanup(h.shutdown)
	ws, err := h.svc.CreateWorkspace(h.ctx, "Acme", core.PlanPro, -1)
	if err != nil {
		t.Fatal(err)
	}
	h.ws = ws.ID
	return h
}

func (h *harness) connect() {
	h.st = h.open()
	h.svc = core.NewService(h.st, core.Options{})
	st := h.st
	h.stops = append(h.stops, func() { st.Close() })
}

// shutdown stops what runs, newest first: the Set's Run, then the store it used.
func (h *harness) shutdown() {
	for i := len(h.stops) - 1; i >= 0; i-- {
		h.stops[i]()
	}
	h.stops = nil
}

// restart stops the daemon's part (Set, server, store) and builds it again on the same data and entries,
// as a restarted daemon does.
func (h *harness) restart(entries ...map[string]any) {
	h.t.Helper()
	h.srv.Close()
	h.shutdown()
	h.connect()
	h.start(entries...)
}

// run runs the Set (status and queue workers) until the test ends or the harness restarts.
func (h *harness) run() {
	ctx, cancel := context.WithCancel(h.ctx)
	done := make(chan error, 1)
	set := h.set
	go func() { done <- set.Run(ctx) }()
	h.stops = append(h.stops, func() {
		cancel()
		if err := <-done; err != nil {
			h.t.Errorf("run: %v", err)
		}
	})
}

// start builds the connector from raw entries, as the daemon does, and serves its routes.
func (h *harness) start(entries ...map[string]any) {
	h.t.Helper()
	for _, e := range entries {
		if _, ok := e["workspace"]; !ok {
			e["workspace"] = string(h.ws)
		}
	}
	l := logrus.New()
	l.SetOutput(h.logs)
	set, err := Build(entries, connectors.Env{Service: h.svc, Log: logrus.NewEntry(l).WithField("connector_kind", Kind)})
	if err != nil {
		h.t.Fatal(err)
	}
	h.set = set.(*Set)
	mux := http.NewServeMux()
	h.set.Routes(mux)
	h.srv = httptest.NewServer(mux)
	h.t.Cleanup(h.srv.Close)
}

type reply struct {
	status int
	body   string
}

func (h *harness) post(name string, body []byte, header http.Header) reply {
	h.t.Helper()
	req, err := http.NewRequest("POST", h.srv.URL+"/hooks/"+name, bytes.NewReader(body))
	if err != nil {
		h.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	for k, v := range header {
		req.Header[k] = v
	}
	resp, err := h.srv.Client().Do(req)
	if err != nil {
		h.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return reply{resp.StatusCode, string(b)}
}

func (r reply) want(t testing.TB, status int, contains ...string) reply {
	t.Helper()
	if r.status != status {
		t.Fatalf("status %d, want %d: %s", r.status, status, r.body)
	}
	for _, c := range contains {
		if !strings.Contains(r.body, c) {
			t.Fatalf("body %s lacks %q", r.body, c)
		}
	}
	return r
}

func (r reply) ids(t testing.TB) []recordSeen {
	t.Helper()
	var c created
	if err := json.Unmarshal([]byte(r.body), &c); err != nil {
		t.Fatal(err)
	}
	return c.Records
}

// records lists the workspace's feedback, newest first.
func (h *harness) records() []core.Record {
	h.t.Helper()
	p, err := h.svc.List(h.ctx, h.ws, core.ListRequest{RecordType: "Feedback"})
	if err != nil {
		h.t.Fatal(err)
	}
	return p.Records
}

// hexSig signs like the default settings: "sha256=" + hex(HMAC-SHA256(secret, body)).
func hexSig(secret string, body []byte) http.Header {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write(body)
	return http.Header{"X-Signature": {"sha256=" + hex.EncodeToString(m.Sum(nil))}}
}

func base64Sig(secret, stamp string, body []byte) string {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte(stamp))
	m.Write(body)
	return base64.StdEncoding.EncodeToString(m.Sum(nil))
}

func sha1Sig(secret string, body []byte) string {
	m := hmac.New(sha1.New, []byte(secret))
	m.Write(body)
	return "sha1=" + hex.EncodeToString(m.Sum(nil))
}
