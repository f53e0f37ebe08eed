package e2e

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"
)

// eventSink is a subscriber that keeps every event it was sent, by id, and the bodies' hashes, so that a
// duplicate can be told from a different event under the same id.
type eventSink struct {
	mu       sync.Mutex
	byID     map[string][32]byte
	created  map[string]string   // record id -> event id of its record.created
	statuses map[string][]string // record id -> statuses of its record.status_changed, in arrival order
	deliver  int
}

func newEventSink(t *testing.T) (*eventSink, *httptest.Server) {
	s := &eventSink{byID: map[string][32]byte{}, created: map[string]string{}, statuses: map[string][]string{}}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var ev struct {
			ID, Type string
			Data     struct{ Record struct{ ID, Status string } }
		}
		if err := json.Unmarshal(body, &ev); err != nil || ev.ID != r.Header.Get("X-Feedbridge-Event-Id") {
			t.Errorf("bad delivery: %v %q", err, body)
		}
		time.Sleep(time.Duration(len(body)%3) * time.Millisecond) // deliveries in flight when the kill comes
		s.mu.Lock()
		defer s.mu.Unlock()
		s.deliver++
		sum := sha256.Sum256(body)
		if prev, dup := s.byID[ev.ID]; dup {
			if prev != sum {
				t.Errorf("event %s delivered twice with different bodies", ev.ID)
			}
			w.WriteHeader(http.StatusOK)
			return // a duplicate: the subscriber drops it by its id
		}
		s.byID[ev.ID] = sum
		switch ev.Type {
		case "record.created":
			s.created[ev.Data.Record.ID] = ev.ID
		case "record.status_changed":
			s.statuses[ev.Data.Record.ID] = append(s.statuses[ev.Data.Record.ID], ev.Data.Record.Status)
		}
		w.WriteHeader(http.StatusOK)
	}))
	t.Cleanup(srv.Close)
	return s, srv
}

// kill -9 of the daemon while clients write and events are delivered: afterwards every committed record
// has its record.created event, every record's last status change arrived last and matches what is stored,
// no event names a change that did not commit, and a duplicate always carries the same id and body.
func TestCrashDuringEventDelivery(t *testing.T) {
	t.Parallel()
	eachStore(t, func(t *testing.T, storeURL string) {
		e := newEnv(t, storeURL, "")
		ws, key := e.workspace("Crash events")
		sink, srv := newEventSink(t)
		cfg, err := os.ReadFile(e.config)
		if err != nil {
			t.Fatal(err)
		}
		cfg = fmt.Appendf(cfg, "events:\n  - {name: sink, workspace: %s, url: %s/hook, secret: k3y, allow_private: true, events: [record.created, record.status_changed]}\n", ws, srv.URL)
		if err := os.WriteFile(e.config, cfg, 0o600); err != nil {
			t.Fatal(err)
		}
		statuses := []string{"Planned", "In progress", "Done"}
		trials := crashTrials(t, 8)
		for trial := range trials {
			d := e.start()
			stop := make(chan struct{})
			var wg sync.WaitGroup
			for w := range 3 {
				wg.Go(func() {
					for i := 0; ; i++ {
						select {
						case <-stop:
							return
						default:
						}
						code, id := post(d, key, "/api/records/idea", "", fmt.Sprintf(`{"title":"idea %d-%d-%d"}`, trial, w, i))
						if code != 201 {
							return // killed
						}
						for _, s := range statuses[:i%4] {
							req, _ := http.NewRequest("PATCH", d.url("/api/records/"+id), strings.NewReader(fmt.Sprintf(`{"status":%q}`, s)))
							req.Header.Set("x-api-key", key)
							req.Header.Set("Content-Type", "application/json")
							resp, err := client.Do(req)
							if err != nil {
								return
							}
							resp.Body.Close()
						}
					}
				})
			}
			time.Sleep(jitter(100*time.Millisecond, 700*time.Millisecond))
			d.kill()
			close(stop)
			wg.Wait()
		}
		d := e.start()
		type rec struct{ ID, Status string }
		var stored []rec
		for _, ids := range listTitles(t, d, key, "Idea") {
			for _, id := range ids {
				var r rec
				do(t, "GET", d.url("/api/records/"+id), key, "", &r)
				stored = append(stored, r)
			}
		}
		eventually(t, 60*time.Second, "every event delivered", func() bool {
			var subs []struct {
				Name    string
				Pending int
			}
			do(t, "GET", d.url("/api/events/subscribers"), key, "", &subs)
			return len(subs) == 1 && subs[0].Pending == 0
		})
		sink.mu.Lock()
		defer sink.mu.Unlock()
		known := map[string]bool{}
		for _, r := range stored {
			known[r.ID] = true
			if sink.created[r.ID] == "" {
				t.Errorf("record %s committed, its record.created never arrived", r.ID)
			}
			got := sink.statuses[r.ID]
			switch {
			case r.Status == "Triage" && len(got) > 0:
				t.Errorf("record %s never moved, yet status events %v arrived", r.ID, got)
			case r.Status != "Triage" && (len(got) == 0 || got[len(got)-1] != r.Status):
				t.Errorf("record %s is %s, its status events arrived as %v", r.ID, r.Status, got)
			}
			for i := 1; i < len(got); i++ {
				if statusRank(got[i]) <= statusRank(got[i-1]) {
					t.Errorf("record %s: status events out of order: %v", r.ID, got)
				}
			}
		}
		for id := range sink.created {
			if !known[id] {
				t.Errorf("an event names record %s, which was never committed", id)
			}
		}
		figures(t, "trials=%d records=%d events=%d deliveries=%d duplicates=%d", trials, len(stored), len(sink.byID),
			sink.deliver, sink.deliver-len(sink.byID))
	})
}

func statusRank(s string) int {
	return strings.Index("Triage Planned In progress Done", s)
}
