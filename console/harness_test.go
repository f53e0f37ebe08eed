package console_test

import (
	"context"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/feedbridge/feedbridge/api"
	"github.com/feedbridge/feedbridge/console"
	"github.com/feedbridge/feedbridge/core"
	"github.com/feedbridge/feedbridge/store/postgres/pgtest"
	"github.com/feedbridge/feedbridge/store/sqlite"
	"github.com/feedbridge/feedbridge/suggest"
)

const password = "correct horse battery"

// backends are the stores each test runs on: SQLite always, PostgreSQL when its test server is named.
func backends() map[string]func(t *testing.T) core.Store {
	out := map[string]func(t *testing.T) core.Store{"sqlite": func(t *testing.T) core.Store {
		st, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "feedbridge.db"))
		if err != nil {
			t.Fatalf("open sqlite: %v", err)
		}
		t.Cleanup(func() { st.Close() })
		return st
	}}
	if os.Getenv(pgtest.EnvURL) != "" {
		out["postgres"] = func(t *testing.T) core.Store { return pgtest.Open(t) }
	}
	return out
}

// eachStore runs fn once per backend with a fresh server over it.
func eachStore(t *testing.T, fn func(t *testing.T, e *env)) {
	for name, open := range backends() {
		t.Run(name, func(t *testing.T) { fn(t, newEnv(t, open(t))) })
	}
}

// env is the real HTTP server, the API and the console together as the daemon mounts them, over a real
// store, with one workspace.
type env struct {
	t   testing.TB
	ctx context.Context
	svc *core.Service
	srv *httptest.Server
	ws  core.Workspace
	// logs holds everything the API and the console logged.
	logs *syncBuffer
}

// syncBuffer is a log sink that request goroutines can share.
type syncBuffer struct {
	mu  sync.Mutex
	buf strings.Builder
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func newEnv(t testing.TB, st core.Store) *env { return newEnvWith(t, st, nil) }

// newEnvWith is newEnv with the console's options changed by tune (nil: the defaults).
func newEnvWith(t testing.TB, st core.Store, tune func(*console.Options)) *env {
	svc := core.NewService(st, core.Options{Matcher: suggest.New(st, suggest.Options{})})
	logs := &syncBuffer{}
	l := logrus.New()
	l.SetOutput(logs)
	log := logrus.NewEntry(l)
	o := console.Options{FailureDelay: 100 * time.Millisecond, Log: log, UploadDir: t.TempDir()}
	if tune != nil {
		tune(&o)
	}
	c := console.New(svc, o)
	srv := httptest.NewServer(api.New(svc, api.Options{Extra: c.Register, Log: log}).Handler())
	t.Cleanup(srv.Close)
	e := &env{t: t, ctx: t.Context(), svc: svc, srv: srv, logs: logs}
	e.ws = e.workspace("Acme")
	return e
}

func (e *env) workspace(name string) core.Workspace {
	e.t.Helper()
	ws, err := e.svc.CreateWorkspace(e.ctx, name, core.PlanBusiness, -1)
	if err != nil {
		e.t.Fatal(err)
	}
	return ws
}

// browser is one person's cookie jar; it does not follow redirects, so tests see where they point.
type browser struct {
	e   *env
	c   *http.Client
	hdr http.Header // sent with every request
}

func (e *env) browser() *browser {
	jar, _ := cookiejar.New(nil)
	return &browser{e: e, hdr: http.Header{}, c: &http.Client{Jar: jar, Timeout: 30 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

// member adds a member to ws who has chosen the test password and returns a browser signed in as it.
func (e *env) member(ws core.ID, email string, role core.Role) (core.Member, *browser) {
	e.t.Helper()
	m, link, err := e.svc.AddMember(e.ctx, ws, email, role)
	if err != nil {
		e.t.Fatal(err)
	}
	if _, _, err := e.svc.UseSignInLink(e.ctx, link, password); err != nil {
		e.t.Fatal(err)
	}
	b := e.browser()
	if res := b.post("/signin", url.Values{"email": {email}, "password": {password}}); res.status != http.StatusSeeOther {
		e.t.Fatalf("sign in %s: %d %s", email, res.status, res.body)
	}
	return m, b
}

type response struct {
	status int
	header http.Header
	body   string
}

func (b *browser) do(method, path string, form url.Values, extra http.Header) response {
	b.e.t.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequest(method, b.e.srv.URL+path, body)
	if err != nil {
		b.e.t.Fatal(err)
	}
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	for k, vs := range b.hdr {
		req.Header[k] = vs
	}
	for k, vs := range extra {
		req.Header[k] = vs
	}
	res, err := b.c.Do(req)
	if err != nil {
		b.e.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	return response{status: res.StatusCode, header: res.Header, body: string(raw)}
}

func (b *browser) get(path string) response { return b.do(http.MethodGet, path, nil, nil) }
func (b *browser) post(path string, form url.Values) response {
	return b.do(http.MethodPost, path, form, nil)
}

func (e *env) feedback(ws core.ID, title, desc string) core.Record {
	e.t.Helper()
	res, err := e.svc.Submit(e.ctx, ws, core.Submission{Type: core.RecordFeedback, Title: title, Description: desc,
		CustomerEmail: "jane@globex.com", Source: "Email"})
	if err != nil {
		e.t.Fatal(err)
	}
	return res.Record
}

func wantStatus(t *testing.T, what string, got response, want int) {
	t.Helper()
	if got.status != want {
		t.Fatalf("%s: status %d, want %d; body:\n%s", what, got.status, want, got.body)
	}
}
