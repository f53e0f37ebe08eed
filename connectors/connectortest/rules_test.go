package connectortest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/feedbridge/feedbridge/api"
	"github.com/feedbridge/feedbridge/connectors"
	"github.com/feedbridge/feedbridge/core"
)

// TestKitRules shows each of the kit's rules working on the probe kind, and each check failing on a kind
// that breaks its rule.
func TestKitRules(t *testing.T) {
	probe, _ := connectors.Lookup("probe")

	t.Run("a key left out gets its default tag", func(t *testing.T) {
		set := buildOne(t, map[string]any{"name": "p", "workspace": testWorkspace}, connectors.Env{})
		if got := set.entries[0].cfg; got.Every != time.Minute || got.Source != "Web" {
			t.Errorf("every %s, source %q: want the tags' 1m and Web", got.Every, got.Source)
		}
		set = buildOne(t, map[string]any{"name": "p", "workspace": testWorkspace, "every": "30s", "source": ""}, connectors.Env{})
		if got := set.entries[0].cfg; got.Every != 30*time.Second || got.Source != "" {
			t.Errorf("every %s, source %q: a key given (even blank) must win over its default", got.Every, got.Source)
		}
		if err := CheckDefaults(probe); err != nil {
			t.Errorf("the probe kind: %v", err)
		}
		broken := probe
		broken.Config = func() any { return &probeConfig{Every: 5 * time.Minute} }
		if err := CheckDefaults(broken); err == nil || !strings.Contains(err.Error(), "every") {
			t.Errorf("a Config that contradicts its default tag passes the check: %v", err)
		}
	})

	t.Run("metrics are registered once however often the kind is built", func(t *testing.T) {
		entry := map[string]any{"name": "p", "workspace": testWorkspace}
		if err := CheckBuildsTwice("probe", entry, connectors.Env{}); err != nil {
			t.Errorf("the probe kind: %v", err)
		}
		if err := CheckBuildsTwice("probe_bad_metrics", entry, connectors.Env{}); err == nil || !strings.Contains(err.Error(), "panicked") {
			t.Errorf("a kind that registers at every build passes the check: %v", err)
		}
	})

	t.Run("states are the kit's", func(t *testing.T) {
		for _, s := range connectors.States {
			if err := CheckState(core.ConnectorStatus{Kind: "probe", Name: "p", State: string(s)}); err != nil {
				t.Error(err)
			}
		}
		if err := CheckState(core.ConnectorStatus{Kind: "probe", Name: "p", State: "listening"}); err == nil {
			t.Error("a state outside the vocabulary passes the check")
		}
	})

	t.Run("a suspended workspace is an error value", func(t *testing.T) {
		if err := CheckSuspendedFault([]error{fmt.Errorf("probe: store line 1: %w", core.ErrWorkspaceNotFound)}); err != nil {
			t.Error(err)
		}
		// A kind that keeps only the message (the word "workspace" in it) fails the check.
		if err := CheckSuspendedFault([]error{errors.New("probe: store line 1: " + core.ErrWorkspaceNotFound.Error())}); err == nil {
			t.Error("a fault that lost its error value passes the check")
		}
	})

	t.Run("a refused item is shown apart and is no fault", func(t *testing.T) {
		at := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
		good := core.ConnectorStatus{Kind: "probe", Name: "p", State: "running", Refused: 1, LastRefused: "line 4 has no title", LastRefusedAt: at}
		if err := CheckRefused(good, nil); err != nil {
			t.Error(err)
		}
		// A kind that reports the refusal as a fault (Fail, or its reason in last_error) fails the check.
		asError := good
		asError.LastError = "1 items refused: line 4 has no title"
		if err := CheckRefused(asError, nil); err == nil {
			t.Error("a refusal shown in last_error passes the check")
		}
		if err := CheckRefused(good, []string{"probe:p"}); err == nil {
			t.Error("a refusal that makes /readyz list the entry passes the check")
		}
		if err := CheckRefused(core.ConnectorStatus{Kind: "probe", Name: "p", State: "running"}, nil); err == nil {
			t.Error("a refusal that was not counted passes the check")
		}
	})

	t.Run("running: sources, refusals, metrics and suspension", testProbeLive)
}

// testProbeLive runs a probe entry on a real store and registry: labels outside the source set are
// stored as Other, a line without a title is refused and shown, the metrics count both, and a
// suspended workspace reaches the kit as core.ErrWorkspaceNotFound.
func testProbeLive(t *testing.T) {
	clk := &clock{}
	live := openWorkspace(t, filepath.Join(t.TempDir(), "fb.db"), core.Options{Now: clk.now})
	inbox := filepath.Join(t.TempDir(), "inbox.jsonl")
	write := func(lines ...string) {
		f, err := os.OpenFile(inbox, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		for _, l := range lines {
			fmt.Fprintln(f, l)
		}
	}
	write(`{"title":"Named source","source":"zendesk"}`, `{"title":"Unknown source","source":"Carrier pigeon"}`,
		`{"title":"No source"}`, `{"source":"web"}`)
	var (
		mu     sync.Mutex
		faults []error
	)
	reg := prometheus.NewRegistry()
	env := connectors.Env{Service: live.Service, Metrics: reg, Now: time.Now, Faults: func(kind, name string, err error) {
		mu.Lock()
		defer mu.Unlock()
		faults = append(faults, err)
	}}
	entry := map[string]any{"name": "p", "workspace": string(live.Workspace), "every": "20ms", "inbox": inbox, "source": "Widget"}
	set := buildOne(t, entry, env)
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { _ = set.Run(ctx); close(done) }()
	t.Cleanup(func() { stop(); <-done })

	want := []Item{{Title: "Named source"}, {Title: "Unknown source"}, {Title: "No source"}}
	waitStored(t, live, want, "the probe's three items")
	m := byTitle(listRecords(t, live))
	for title, src := range map[string]string{"Named source": "Zendesk", "Unknown source": "Other", "No source": "Widget"} {
		if got := m[title][0].Source; got != src {
			t.Errorf("%q stored with source %q, want %q", title, got, src)
		}
	}
	status := func() core.ConnectorStatus {
		sts, err := live.Service.Connectors(context.Background(), live.Workspace)
		if err != nil || len(sts) != 1 {
			t.Fatalf("statuses %+v, %v", sts, err)
		}
		return sts[0]
	}
	waitUntil(t, "the refusal to show", func() bool { return status().Refused == 1 })
	if st := status(); st.LastRefused != "line 4 has no title" || CheckState(st) != nil || CheckRefused(st, live.Service.Faults().List()) != nil {
		t.Errorf("status %+v: want the refusal's count and reason apart from last_error, in a state of the kit (%v)", st,
			CheckRefused(st, live.Service.Faults().List()))
	}
	checkRefusedOverHTTP(t, live)
	if got := testutil.ToFloat64(set.m.items.WithLabelValues("p", "stored")); got != 3 {
		t.Errorf("feedbridge_probe_items_total{outcome=stored} = %v, want 3", got)
	}
	refused, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, mf := range refused {
		if mf.GetName() == "feedbridge_connector_refused_total" && len(mf.GetMetric()) == 1 && mf.GetMetric()[0].GetCounter().GetValue() == 1 {
			found = true
		}
	}
	if !found {
		t.Error("feedbridge_connector_refused_total does not count the refused line once")
	}

	// A source label outside the set: a configured one is refused when the configuration loads, and a
	// default outside the set that reaches the service all the same is stored as Other.
	bad := map[string]any{"name": "p", "workspace": string(live.Workspace), "source": "Carrier pigeon"}
	if cfg, err := load(t, "probe", bad); err != nil || len(cfg.Validate()) == 0 ||
		!strings.Contains(fmt.Sprint(cfg.Validate()), "connectors.probe[0].source") {
		t.Errorf("a configured source outside the set is not refused by its key: %v", err)
	}
	res, err := live.Service.Submit(context.Background(), live.Workspace, core.Submission{Type: core.RecordFeedback,
		Title: "Default outside the set", PlainText: true, DefaultSource: "Carrier pigeon"})
	if err != nil || res.Record.Source != "Other" {
		t.Errorf("a default source outside the set stored as %q (%v), want Other", res.Record.Source, err)
	}

	// Suspended: the next line's fault reaches the kit as core.ErrWorkspaceNotFound.
	suspended := true
	if _, err := live.Service.UpdateWorkspace(context.Background(), live.Workspace, core.WorkspaceUpdate{Suspended: &suspended}); err != nil {
		t.Fatal(err)
	}
	clk.skip()
	write(`{"title":"While suspended"}`)
	waitUntil(t, "the suspension reported as an error value", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return CheckSuspendedFault(faults) == nil
	})
	if st := status(); st.State != string(connectors.StateError) {
		t.Errorf("state %q while suspended, want error", st.State)
	}
}

// buildOne builds one probe entry through the registry, as the daemon does.
func buildOne(t *testing.T, entry map[string]any, env connectors.Env) *probeSet {
	t.Helper()
	s, err := connectors.BuildKind("probe", []map[string]any{entry}, env)
	if err != nil {
		t.Fatal(err)
	}
	return s.(*probeSet)
}

// checkRefusedOverHTTP reads the probe's refusal as an operator does, from a real API server: GET
// /api/connectors shows refused, last_refused and last_refused_at, and /readyz stays ready without
// listing the entry as failing.
func checkRefusedOverHTTP(t *testing.T, live *Live) {
	t.Helper()
	ctx := context.Background()
	_, key, err := live.Service.CreateKey(ctx, live.Workspace, "probe")
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(api.New(live.Service, api.Options{}).Handler())
	defer srv.Close()
	get := func(path string, out any) int {
		req, _ := http.NewRequest("GET", srv.URL+path, nil)
		req.Header.Set("X-API-Key", key)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		if err := json.NewDecoder(res.Body).Decode(out); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		return res.StatusCode
	}
	var conns []struct {
		Name          string `json:"name"`
		LastError     string `json:"last_error"`
		Refused       *int   `json:"refused"`
		LastRefused   string `json:"last_refused"`
		LastRefusedAt string `json:"last_refused_at"`
	}
	if code := get("/api/connectors", &conns); code != 200 || len(conns) != 1 {
		t.Fatalf("GET /api/connectors: %d %+v", code, conns)
	}
	if c := conns[0]; c.Refused == nil || *c.Refused != 1 || c.LastRefused != "line 4 has no title" || c.LastRefusedAt == "" || c.LastError != "" {
		t.Errorf("GET /api/connectors shows %+v, want refused 1 with its reason and time, and no last_error", c)
	}
	var ready struct {
		Status  string   `json:"status"`
		Failing []string `json:"failing"`
	}
	if code := get("/readyz", &ready); code != 200 || ready.Status != "ready" || slices.Contains(ready.Failing, "probe:p") {
		t.Errorf("/readyz %d %+v: a refused item made the entry failing", code, ready)
	}
}
