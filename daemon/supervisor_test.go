package daemon

import (
	"context"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sirupsen/logrus"
	"github.com/sirupsen/logrus/hooks/test"

	"github.com/feedbridge/feedbridge/connectors"
	"github.com/feedbridge/feedbridge/core"
	"github.com/feedbridge/feedbridge/store/sqlite"
)

// TestReloadRestartsOnlyChangedWebhooks: a reload that adds one webhook entry starts that one only; the
// others keep running (their workers are not restarted), a changed one restarts and a removed one stops.
// Before the fix every webhook entry restarted with any change to any of them.
func TestReloadRestartsOnlyChangedWebhooks(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "sup.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	svc := core.NewService(st, core.Options{})
	ws, err := svc.CreateWorkspace(ctx, "Hooks", core.PlanBusiness, 0)
	if err != nil {
		t.Fatal(err)
	}
	logger, hook := test.NewNullLogger()
	logger.SetLevel(logrus.InfoLevel)
	sup := newSupervisor(ctx, connectors.Env{Service: svc, Log: logrus.NewEntry(logger), Now: time.Now}, svc.Faults(), logrus.NewEntry(logger))
	defer sup.wait()
	defer cancel()
	hookEntry := func(name, secret string) map[string]any {
		return map[string]any{"name": name, "workspace": string(ws.ID), "secret": secret,
			"mapping": map[string]any{"title": "title", "external_id": "id"}}
	}
	listening := func(name string) int {
		n := 0
		for _, e := range hook.AllEntries() {
			if e.Message == "webhook: listening on /hooks/"+name {
				n++
			}
		}
		return n
	}
	applied := func() (started, stopped []string) {
		for _, e := range slices.Backward(hook.AllEntries()) {
			if e.Message == "connectors: applied the configuration" {
				return e.Data["started"].([]string), e.Data["stopped"].([]string)
			}
		}
		return nil, nil
	}
	eventually := func(what string, ok func() bool) {
		t.Helper()
		for deadline := time.Now().Add(5 * time.Second); !ok(); time.Sleep(10 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("%s: not within 5 s", what)
			}
		}
	}
	steps := []struct {
		name                  string
		entries               []map[string]any
		wantStarted, wantStop []string
		wantListening         map[string]int // times each entry has started in all
	}{
		{"start", []map[string]any{hookEntry("a", "s1"), hookEntry("b", "s1")}, []string{"webhook"}, nil, map[string]int{"a": 1, "b": 1}},
		{"add one", []map[string]any{hookEntry("a", "s1"), hookEntry("b", "s1"), hookEntry("c", "s1")}, []string{"webhook:c"}, nil, map[string]int{"a": 1, "b": 1, "c": 1}},
		{"change one", []map[string]any{hookEntry("a", "s1"), hookEntry("b", "s2"), hookEntry("c", "s1")}, []string{"webhook:b"}, []string{"webhook:b"}, map[string]int{"a": 1, "b": 2, "c": 1}},
		{"remove one", []map[string]any{hookEntry("a", "s1"), hookEntry("b", "s2")}, nil, []string{"webhook:c"}, map[string]int{"a": 1, "b": 2, "c": 1}},
	}
	for _, s := range steps {
		if err := sup.apply(map[string][]map[string]any{"webhook": s.entries}); err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		started, stopped := applied()
		if !slices.Equal(started, s.wantStarted) || !slices.Equal(stopped, s.wantStop) {
			t.Fatalf("%s: started %v stopped %v, want %v %v", s.name, started, stopped, s.wantStarted, s.wantStop)
		}
		for name, n := range s.wantListening {
			eventually(s.name+": "+name+" listening", func() bool { return listening(name) == n })
		}
	}
	// Requests reach the entries in force: the removed one is gone, the kept ones answer.
	for name, want := range map[string]int{"a": http.StatusUnauthorized, "c": http.StatusNotFound} {
		rec := httptest.NewRecorder()
		req := httptest.NewRequest("POST", "/hooks/"+name, strings.NewReader(`{"id":"1","title":"x"}`))
		req.Header.Set("Content-Type", "application/json")
		sup.ServeHTTP(rec, req)
		if rec.Code != want {
			t.Errorf("POST /hooks/%s unsigned: %d, want %d", name, rec.Code, want)
		}
	}
}
