package api

import (
	"context"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/sirupsen/logrus"

	"github.com/feedbridge/feedbridge/core"
	"github.com/feedbridge/feedbridge/internal/testkit"
	"github.com/feedbridge/feedbridge/store/sqlite"
	"github.com/feedbridge/feedbridge/suggest"
)

// opener makes an empty (or at least workspace-disjoint) store for one test. The same tests run on every
// backend: sqlite always, PostgreSQL when FEEDBRIDGE_TEST_POSTGRES_URL is set (postgres_test.go).
type opener func(t testing.TB) core.Store

func openSQLite(t testing.TB) core.Store {
	st, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "feedbridge.db"))
	if err != nil {
		t.Fatalf("open sqlite: %v", err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// backends lists the stores the API tests run on; postgres_test.go appends to it.
func backends() []struct {
	name string
	open opener
} {
	out := []struct {
		name string
		open opener
	}{{"sqlite", openSQLite}}
	if pg := postgresOpener(); pg != nil {
		out = append(out, struct {
			name string
			open opener
		}{"postgres", pg})
	}
	return out
}

// eachStore runs fn once per backend as a subtest.
func eachStore(t *testing.T, fn func(t *testing.T, open opener)) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) { fn(t, b.open) })
	}
}

// envOpts tune one test server.
type envOpts struct {
	rate       RateLimit
	ideaLimit  int // <0: the plan's default
	plan       core.Plan
	authTTL    time.Duration
	extra      func(mux *http.ServeMux)
	ready      func(ctx context.Context) error
	timeout    time.Duration // RequestTimeout
	configured func(ws core.ID, kind, name string) bool
	// subscribers builds the event subscribers' status from the env's store and service (Options.Subscribers).
	subscribers func(e *env) func(ctx context.Context, ws core.ID) ([]core.SubscriberStatus, error)
}

// env is one running server over a real store, with two workspaces so isolation can be checked anywhere.
type env struct {
	t        testing.TB
	store    core.Store
	svc      *core.Service
	srv      *httptest.Server
	reg      *prometheus.Registry
	logs     *testkit.Buffer
	ws       core.Workspace
	key      string
	tags     []core.Lookup // Bug, onboarding, Pricing
	products []core.Lookup // Mobile, web
	users    []core.User   // Ada, grace
	other    core.Workspace
	otherKey string
	spec     *specChecker
}

func newEnv(t testing.TB, open opener, o envOpts) *env {
	t.Helper()
	ctx := context.Background()
	e := &env{t: t, store: open(t), reg: prometheus.NewRegistry(), logs: &testkit.Buffer{}, spec: loadSpec(t)}
	m, err := NewMetrics(e.reg)
	if err != nil {
		t.Fatal(err)
	}
	e.svc = core.NewService(e.store, core.Options{Observer: m, Matcher: suggest.New(e.store, suggest.Options{})})
	l := logrus.New()
	l.SetOutput(e.logs)
	l.SetFormatter(&logrus.JSONFormatter{})
	if o.rate.PerSecond == 0 {
		o.rate = RateLimit{PerSecond: 10_000, Burst: 10_000}
	}
	if o.plan == "" {
		o.plan = core.PlanPro
	}
	if o.ideaLimit == 0 {
		o.ideaLimit = -1
	}
	opts := Options{Log: logrus.NewEntry(l), RateLimit: o.rate, Metrics: m, Extra: o.extra, Ready: o.ready, AuthCacheTTL: o.authTTL,
		RequestTimeout: o.timeout, Configured: o.configured}
	if o.subscribers != nil {
		opts.Subscribers = o.subscribers(e)
	}
	srv := New(e.svc, opts)
	e.srv = httptest.NewServer(srv.Handler())
	t.Cleanup(e.srv.Close)

	e.ws, e.key = e.workspace(ctx, "Acme Workspace", o.plan, o.ideaLimit)
	must(t, err)
	e.tags, err = e.svc.AddLookups(ctx, e.ws.ID, core.LookupTag, []string{"Pricing", "Bug", "onboarding"})
	must(t, err)
	e.products, err = e.svc.AddLookups(ctx, e.ws.ID, core.LookupProduct, []string{"web", "Mobile"})
	must(t, err)
	for _, n := range []string{"grace Hopper", "Ada Lovelace"} {
		u, err := e.svc.AddUser(ctx, e.ws.ID, n, "")
		must(t, err)
		e.users = append(e.users, u)
	}
	e.other, e.otherKey = e.workspace(ctx, "Other Workspace", core.PlanBusiness, -1)
	return e
}

// workspace creates a workspace with one key.
func (e *env) workspace(ctx context.Context, name string, plan core.Plan, limit int) (core.Workspace, string) {
	e.t.Helper()
	ws, err := e.svc.CreateWorkspace(ctx, name, plan, limit)
	must(e.t, err)
	_, key, err := e.svc.CreateKey(ctx, ws.ID, "test")
	must(e.t, err)
	return ws, key
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// label finds a lookup's id by label.
func label(t testing.TB, ls []core.Lookup, l string) core.ID {
	t.Helper()
	for _, x := range ls {
		if x.Label == l {
			return x.ID
		}
	}
	t.Fatalf("no lookup %q", l)
	return ""
}

// submit creates a record straight through the service, for types and times the API cannot make.
func (e *env) submit(ws core.ID, sub core.Submission) core.Record {
	e.t.Helper()
	if sub.Type == "" {
		sub.Type = core.RecordIdea
	}
	res, err := e.svc.Submit(context.Background(), ws, sub)
	must(e.t, err)
	return res.Record
}
