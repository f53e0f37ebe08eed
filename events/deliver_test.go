package events_test

import (
	"fmt"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/feedbridge/feedbridge/core"
	"github.com/feedbridge/feedbridge/events"
	"github.com/feedbridge/feedbridge/internal/storekit"
)

// Every change reaches the subscriber signed, with its event id, and the events of one record arrive in
// the order of its changes even with several deliveries in flight.
func TestDeliversSignedInOrderPerRecord(t *testing.T) {
	storekit.Each(t, func(t *testing.T, st core.Store) {
		e := newEnv(t, st, events.Options{})
		sub := newSubscriber(t, func(w http.ResponseWriter, r *http.Request, n int) {
			time.Sleep(time.Duration(n%3) * time.Millisecond) // uneven answers, to tempt reordering
			w.WriteHeader(http.StatusOK)
		})
		en := e.entry("crm", sub.srv.URL)
		en.Concurrency = 8
		e.mgr.Apply([]events.Entry{en})
		statuses := []string{"Planned", "In progress", "Done"}
		var recs []core.Record
		for i := range 6 {
			recs = append(recs, e.submit(fmt.Sprintf("Idea %d", i)))
		}
		for _, s := range statuses {
			for _, r := range recs {
				if _, err := e.svc.Update(t.Context(), e.ws, r.ID, core.Patch{Status: &s}, ""); err != nil {
					t.Fatal(err)
				}
			}
		}
		want := len(recs) * (1 + len(statuses))
		waitFor(t, "every event", 20*time.Second, func() bool { return len(sub.received()) >= want })
		byRecord := map[string][]string{}
		for _, g := range sub.received() {
			byRecord[g.Record] = append(byRecord[g.Record], g.Type+":"+g.Status)
		}
		for _, r := range recs {
			wantSeq := []string{"record.created:Triage"}
			for _, s := range statuses {
				wantSeq = append(wantSeq, "record.status_changed:"+s)
			}
			if !slices.Equal(byRecord[string(r.ID)], wantSeq) {
				t.Errorf("record %s: events %v, want %v", r.ID, byRecord[string(r.ID)], wantSeq)
			}
		}
		// The subscriber has answered the last request a moment before the delivery is marked done.
		waitFor(t, "nothing pending", 10*time.Second, func() bool { return e.status("crm").Pending == 0 })
		s := e.status("crm")
		if s.State != core.SubscriberOK || s.LastSuccessAt.IsZero() || s.URL != sub.srv.URL {
			t.Errorf("status %+v", s)
		}
	})
}
