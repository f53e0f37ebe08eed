package e2e

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// Reloading the real daemon's subscribers with SIGHUP: a removed subscriber with an event pending stops
// (nothing more is sent to it), its event is kept and shown as removed; the remaining one keeps receiving;
// an invalid subscriber entry is refused whole and the running set kept.
func TestReloadEventSubscribers(t *testing.T) {
	t.Parallel()
	e := newEnv(t, "", "")
	ws, key := e.workspace("Reload events")
	var downHits, keptHits atomic.Int32
	down := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		downHits.Add(1)
		w.WriteHeader(http.StatusServiceUnavailable)
	}))
	t.Cleanup(down.Close)
	kept := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { keptHits.Add(1) }))
	t.Cleanup(kept.Close)
	entry := func(name, url string) string {
		return fmt.Sprintf("  - {name: %s, workspace: %s, url: %s, secret: k3y, allow_private: true}\n", name, ws, url)
	}
	e.configure("", "events:\n"+entry("down", down.URL)+entry("kept", kept.URL))
	d := e.start()
	defer d.stop(t, syscall.SIGTERM)
	hup := func(want string) {
		t.Helper()
		before := d.logged(want)
		d.cmd.Process.Signal(syscall.SIGHUP)
		eventually(t, 20*time.Second, "reload outcome "+want, func() bool { return d.logged(want) > before })
	}
	type sub struct {
		Name      string `json:"name"`
		State     string `json:"state"`
		LastError string `json:"last_error"`
		Pending   int    `json:"pending"`
	}
	subs := func() map[string]sub {
		var list []sub
		do(t, "GET", d.url("/api/events/subscribers"), key, "", &list)
		out := map[string]sub{}
		for _, s := range list {
			out[s.Name] = s
		}
		return out
	}
	if code, _ := post(d, key, "/api/records/idea", "", `{"title":"First"}`); code != 201 {
		t.Fatalf("create: %d", code)
	}
	eventually(t, 20*time.Second, "one delivered, one failing", func() bool {
		s := subs()
		return keptHits.Load() == 1 && downHits.Load() >= 1 && s["down"].State == "failing" && s["down"].Pending == 1
	})

	e.configure("", "events:\n"+entry("kept", "http://"+"not a url"))
	hup("reload: refused")
	e.configure("", "events:\n"+entry("kept", kept.URL))
	hup("reload: configuration applied")
	if d.logged("events: subscriber removed", "subscriber", "down") != 1 {
		t.Error("the removal was not logged")
	}
	hits := downHits.Load()
	if code, _ := post(d, key, "/api/records/idea", "", `{"title":"Second"}`); code != 201 {
		t.Fatalf("create: %d", code)
	}
	eventually(t, 20*time.Second, "the remaining subscriber has both", func() bool { return keptHits.Load() == 2 })
	time.Sleep(3 * time.Second) // past the first retry's backoff: a still-running worker would have retried
	if downHits.Load() != hits {
		t.Fatalf("the removed subscriber got %d more deliveries", downHits.Load()-hits)
	}
	s := subs()["down"]
	if s.State != "removed" || s.Pending != 1 || s.LastError == "" {
		t.Fatalf("removed subscriber: %+v", s)
	}
}
