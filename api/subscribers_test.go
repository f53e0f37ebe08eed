package api

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/feedbridge/feedbridge/connectors"
	"github.com/feedbridge/feedbridge/core"
	"github.com/feedbridge/feedbridge/events"
)

// GET /api/events/subscribers lists the key's workspace's subscribers with their delivery state, a removed
// one that still holds events as removed, never another workspace's, never a secret or the URL's query.
func TestEventSubscribersStatus(t *testing.T) {
	eachStore(t, func(t *testing.T, open opener) {
		failing := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(http.StatusBadGateway)
		}))
		t.Cleanup(failing.Close)
		var mgr *events.Manager
		e := newEnv(t, open, envOpts{subscribers: func(e *env) func(context.Context, core.ID) ([]core.SubscriberStatus, error) {
			ctx, cancel := context.WithCancel(context.Background())
			var err error
			mgr, err = events.New(ctx, events.Options{Queue: e.store, Subscribe: e.svc.SetSubscribers, Holder: "api-test",
				Poll: 20 * time.Millisecond, Delay: func(int, time.Duration) time.Duration { return time.Hour }})
			must(t, err)
			t.Cleanup(func() { cancel(); mgr.Wait() })
			return mgr.Status
		}})
		entry := func(name string, ws core.ID) events.Entry {
			en := *events.NewEntry()
			en.Name, en.Workspace, en.URL, en.Secret, en.AllowPrivate = name, string(ws), failing.URL+"/h?token=t0psecret",
				connectors.Secret("k3y-secret"), true
			en.Events = core.EventTypes
			return en
		}
		mgr.Apply([]events.Entry{entry("crm", e.ws.ID), entry("theirs", e.other.ID)})
		gone := core.QueueItem{ID: core.NewID(), Queue: core.EventQueue("gone"), Kind: core.EventKind, Workspace: e.ws.ID,
			Body: []byte(`{}`)}
		must(t, e.store.EnqueueItems(context.Background(), []core.QueueItem{gone}))
		_, err := e.svc.Submit(context.Background(), e.ws.ID, core.Submission{Type: core.RecordIdea, Title: "An idea"})
		must(t, err)

		var got []struct {
			Name          string `json:"name"`
			URL           string `json:"url"`
			State         string `json:"state"`
			Pending       int    `json:"pending"`
			Failed        int    `json:"failed"`
			LastSuccessAt string `json:"last_success_at"`
			LastError     string `json:"last_error"`
			LastErrorAt   string `json:"last_error_at"`
		}
		deadline := time.Now().Add(10 * time.Second)
		for {
			r := e.get("/api/events/subscribers").want(t, 200)
			r.decode(t, &got)
			if strings.Contains(string(r.body), "t0psecret") || strings.Contains(string(r.body), "k3y-secret") {
				t.Fatalf("a secret in the status: %s", r.body)
			}
			if len(got) == 2 && got[0].State == core.SubscriberFailing || time.Now().After(deadline) {
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
		if len(got) != 2 || got[0].Name != "crm" || got[0].State != core.SubscriberFailing || got[0].Pending != 1 ||
			!strings.Contains(got[0].LastError, "502") || got[0].LastErrorAt == "" || got[0].URL != failing.URL+"/h" {
			t.Fatalf("subscribers: %+v", got)
		}
		if got[1].Name != "gone" || got[1].State != core.SubscriberRemoved || got[1].Pending != 1 || got[1].URL != "" {
			t.Fatalf("removed subscriber: %+v", got[1])
		}
		e.get("/api/events/subscribers?x=1").want(t, 400)
	})
}
