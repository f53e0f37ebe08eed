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

// harness is a real SQLite-backed service with the connector's routes on a real HTTP server.
type harness struct {
	t    testing.TB
	ctx  context.Context
	svc  *core.Service
	ws   core.ID
	set  *Set
	srv  *httptest.Server
	logs *testkit.Buffer
}

func newHarness(t testing.TB) *harness {
	t.Helper()
	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "feedbridge.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	h := &harness{t: t, ctx: ctx, svc: core.NewService(st, core.Options{}), logs: &testkit.Buffer{}}
	ws, err := h.svc.CreateWorkspace(ctx, "Acme", core.PlanPro, -1)
	if err != nil {
		t.Fatal(err)
	}
	h.ws = ws.ID
	return h
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
