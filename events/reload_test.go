package events_test

import (
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/feedbridge/feedbridge/core"
	"github.com/feedbridge/feedbridge/events"
	"github.com/feedbridge/feedbridge/internal/storekit"
)

// A reload that removes a subscriber with events pending keeps them, sends them nowhere, and says why in
// the status; the subscriber that stays keeps receiving, and a subscriber configured again gets them.
func TestReloadRemovingSubscriberKeepsItsEvents(t *testing.T) {
	storekit.Each(t, func(t *testing.T, st core.Store) {
		e := newEnv(t, st, events.Options{})
		var down atomic.Bool
		gone := newSubscriber(t, func(w http.ResponseWriter, r *http.Request, n int) {
			if down.Load() {
				w.WriteHeader(http.StatusServiceUnavailable)
			}
		})
		stays := newSubscriber(t, nil)
		a, b := e.entry("gone", gone.srv.URL), e.entry("stays", stays.srv.URL)
		e.mgr.Apply([]events.Entry{a, b})
		e.submit("First")
		waitFor(t, "both delivered", 10*time.Second, func() bool { return len(gone.received()) == 1 && len(stays.received()) == 1 })
		down.Store(true)
		e.submit("Second")
		e.submit("Third")
		waitFor(t, "the failing one tried", 10*time.Second, func() bool { return gone.count() >= 2 })
		e.mgr.Apply([]events.Entry{b})
		hits := gone.count()
		e.submit("Fourth") // written for the remaining subscriber only
		waitFor(t, "the remaining one has every event", 10*time.Second, func() bool { return len(stays.received()) == 4 })
		time.Sleep(200 * time.Millisecond) // several retry delays: a removed worker would have tried again
		if gone.count() != hits {
			t.Fatalf("the removed subscriber was sent %d more deliveries", gone.count()-hits)
		}
		s := e.status("gone")
		if s.State != core.SubscriberRemoved || s.Pending != 2 || s.LastError != events.RemovedNote {
			t.Fatalf("removed subscriber's status: %+v", s)
		}
		qs, err := st.QueueStats(t.Context(), core.EventQueue("gone"))
		if err != nil || qs.Pending != 2 {
			t.Fatalf("its events are not kept: %+v, %v", qs, err)
		}
		// Configured again (and healthy), it gets what was kept, in order.
		down.Store(false)
		e.mgr.Apply([]events.Entry{a, b})
		waitFor(t, "the kept events delivered", 10*time.Second, func() bool { return e.status("gone").Pending == 0 })
	})
}

// A subscriber that answers slowly holds back neither the writes nor another subscriber.
func TestSlowSubscriberHoldsBackNothingElse(t *testing.T) {
	storekit.Each(t, func(t *testing.T, st core.Store) {
		e := newEnv(t, st, events.Options{})
		release := make(chan struct{})
		slow := newSubscriber(t, func(w http.ResponseWriter, r *http.Request, n int) {
			select {
			case <-release:
			case <-r.Context().Done():
			}
		})
		fast := newSubscriber(t, nil)
		s := e.entry("slow", slow.srv.URL)
		s.Timeout = 30 * time.Second
		e.mgr.Apply([]events.Entry{s, e.entry("fast", fast.srv.URL)})
		start := time.Now()
		for range 20 {
			e.submit("An idea")
		}
		writes := time.Since(start)
		waitFor(t, "the fast subscriber has every event", 10*time.Second, func() bool { return len(fast.received()) == 20 })
		if got := slow.count(); got > events.DefaultConcurrency {
			t.Errorf("the slow subscriber has %d deliveries in flight, over its concurrency", got)
		}
		if writes > 5*time.Second {
			t.Errorf("20 writes took %s with a stalled subscriber", writes)
		}
		close(release)
		waitFor(t, "the slow one catches up", 15*time.Second, func() bool { return len(slow.received()) == 20 })
	})
}
