package events_test

import (
	"context"
	"crypto/tls"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/feedbridge/feedbridge/core"
	"github.com/feedbridge/feedbridge/events"
	"github.com/feedbridge/feedbridge/internal/storekit"
)

// A subscriber that answers anything but 2xx, too slowly or not at all gets its event again later; the
// error is kept in its status without the URL's query; an endless answer does not hold a delivery.
func TestFaultsAreRetried(t *testing.T) {
	other := newSubscriber(t, nil) // the other host a redirect points to: must never be reached
	cases := []struct {
		name     string
		answer   func(w http.ResponseWriter, r *http.Request, n int)
		url      func(s *subscriber) string // default: the stand-in's URL with a secret-looking query
		err      string                     // in last_error after the first attempt
		delivers bool                       // delivered after the fault (on the second attempt)
	}{
		{name: "301 to another host", err: "answered 301", answer: func(w http.ResponseWriter, r *http.Request, n int) {
			http.Redirect(w, r, other.srv.URL, http.StatusMovedPermanently)
		}},
		{name: "307 to another host", err: "redirect to another host", answer: func(w http.ResponseWriter, r *http.Request, n int) {
			http.Redirect(w, r, strings.Replace(other.srv.URL, "127.0.0.1", "localhost", 1), http.StatusTemporaryRedirect)
		}},
		{name: "307 to the same host is followed", delivers: true, answer: func(w http.ResponseWriter, r *http.Request, n int) {
			if r.URL.Path == "/moved" {
				w.WriteHeader(http.StatusAccepted)
				return
			}
			http.Redirect(w, r, "/moved", http.StatusTemporaryRedirect)
		}},
		{name: "400", err: "answered 400 Bad Request", delivers: true, answer: failFirst(http.StatusBadRequest)},
		{name: "410", err: "answered 410 Gone", answer: func(w http.ResponseWriter, r *http.Request, n int) { w.WriteHeader(http.StatusGone) }},
		{name: "500", err: "answered 500 Internal Server Error", delivers: true, answer: failFirst(http.StatusInternalServerError)},
		{name: "slow", err: "no answer in time", delivers: true, answer: func(w http.ResponseWriter, r *http.Request, n int) {
			if n == 1 {
				time.Sleep(1500 * time.Millisecond)
			}
		}},
		{name: "huge answer", delivers: true, answer: func(w http.ResponseWriter, r *http.Request, n int) {
			w.WriteHeader(http.StatusOK)
			chunk := make([]byte, 64<<10)
			for i := 0; i < 16<<10; i++ { // a GiB: the sender stops reading long before
				if _, err := w.Write(chunk); err != nil {
					return
				}
			}
		}},
		{name: "refused connection", err: "connection refused", url: func(*subscriber) string { return "http://" + closedAddr(t) + "/hook?token=abc" }},
		{name: "accepts and never answers", err: "no answer in time", url: func(*subscriber) string { return "http://" + silentAddr(t) + "/hook?token=abc" }},
	}
	storekit.Each(t, func(t *testing.T, st core.Store) {
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				e := newEnv(t, st, events.Options{})
				sub := newSubscriber(t, c.answer)
				url := sub.srv.URL + "/hook?token=abc"
				if c.url != nil {
					url = c.url(sub)
				}
				en := e.entry("s", url)
				en.Name = "s-" + strings.ReplaceAll(c.name, " ", "-")
				en.Timeout = 700 * time.Millisecond
				e.mgr.Apply([]events.Entry{en})
				start := time.Now()
				e.submit("An idea")
				if c.delivers {
					waitFor(t, "delivery", 15*time.Second, func() bool { return e.status(en.Name).Pending == 0 })
					if c.name == "huge answer" && time.Since(start) > 5*time.Second {
						t.Errorf("a huge answer held the delivery for %s", time.Since(start))
					}
				} else {
					waitFor(t, "a second failed attempt", 15*time.Second, func() bool {
						its := pendingAttempts(t, st, en.Name)
						return its >= 2
					})
				}
				s := e.status(en.Name)
				if c.err != "" && !strings.Contains(s.LastError, c.err) {
					t.Errorf("last error %q, want it to say %q", s.LastError, c.err)
				}
				if strings.Contains(s.LastError, "token") || strings.Contains(s.URL, "token") {
					t.Errorf("status shows the URL's query: %+v", s)
				}
				if c.delivers && (s.State != core.SubscriberOK || s.LastSuccessAt.IsZero()) {
					t.Errorf("after delivery: %+v", s)
				}
				if !c.delivers && (s.State != core.SubscriberFailing || s.Pending != 1) {
					t.Errorf("while failing: %+v", s)
				}
			})
		}
		if n := other.count(); n != 0 {
			t.Errorf("a redirect to another host was followed %d times", n)
		}
	})
}

func failFirst(code int) func(w http.ResponseWriter, r *http.Request, n int) {
	return func(w http.ResponseWriter, r *http.Request, n int) {
		if n == 1 {
			w.WriteHeader(code)
		}
	}
}

// pendingAttempts is how many attempts the subscriber's one pending event has had, read by claiming it
// briefly under another holder once its lease is free; 0 while none is claimable.
func pendingAttempts(t *testing.T, st core.Store, name string) int {
	sts, err := st.QueueStats(t.Context(), core.EventQueue(name))
	if err != nil || sts.Pending != 1 {
		return 0
	}
	its, err := st.ClaimItems(t.Context(), core.EventQueue(name), "peek", 1, time.Minute)
	if err != nil || len(its) != 1 {
		return 0
	}
	_ = st.ReleaseItem(t.Context(), its[0], "peek")
	return its[0].Attempts - 1 // the peek's own claim counted as one, and release gives it back
}

// closedAddr is a loopback address where nothing listens.
func closedAddr(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

// silentAddr accepts connections and never answers.
func silentAddr(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			t.Cleanup(func() { c.Close() })
		}
	}()
	return ln.Addr().String()
}

// A 503 with Retry-After waits as long as asked, and an event retried past its retry_for is kept as
// failed, listed, and sent again by a retry.
func TestRetryAfterThenFailedAndRetried(t *testing.T) {
	storekit.Each(t, func(t *testing.T, st core.Store) {
		var healthy atomic.Bool
		e := newEnv(t, st, events.Options{})
		sub := newSubscriber(t, func(w http.ResponseWriter, r *http.Request, n int) {
			if !healthy.Load() {
				w.Header().Set("Retry-After", "7")
				w.WriteHeader(http.StatusServiceUnavailable)
			}
		})
		en := e.entry("flaky", sub.srv.URL)
		en.RetryFor = 400 * time.Millisecond
		e.mgr.Apply([]events.Entry{en})
		rec := e.submit("An idea")
		waitFor(t, "the event kept as failed", 15*time.Second, func() bool { return e.status("flaky").Failed == 1 })
		e.mu.Lock()
		ra := e.retryAfters
		e.mu.Unlock()
		if len(ra) == 0 || ra[0] != 7*time.Second {
			t.Errorf("Retry-After given to the backoff: %v, want 7s", ra)
		}
		failed, err := e.svc.FailedEvents(t.Context(), e.ws)
		if err != nil || len(failed) != 1 || failed[0].Subscriber != "flaky" || failed[0].Record != rec.ID ||
			!strings.Contains(failed[0].LastError, "503") {
			t.Fatalf("failed events: %+v, %v", failed, err)
		}
		healthy.Store(true)
		if n, err := e.svc.RetryEvents(t.Context(), e.ws, failed[0].ID); err != nil || n != 1 {
			t.Fatalf("retry: %d, %v", n, err)
		}
		waitFor(t, "the retried event delivered", 15*time.Second, func() bool {
			g := sub.received()
			return e.status("flaky").Pending == 0 && len(g) > 0 && g[len(g)-1].ID == string(failed[0].ID)
		})
	})
}

// Private addresses are checked at each connection, after name resolution: a name that starts resolving
// to loopback is refused, and nothing reaches the server behind it; allow_private lets the same through.
func TestNameResolvingToLoopbackIsRefused(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	t.Cleanup(srv.Close)
	var hits atomic.Int32
	srv.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1) })
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	var lookups atomic.Int32
	resolve := func(_ context.Context, host string) ([]netip.Addr, error) {
		if host != "example.com" {
			t.Errorf("resolved %q", host)
		}
		if lookups.Add(1) == 1 {
			return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
		}
		return []netip.Addr{netip.MustParseAddr("127.0.0.1")}, nil
	}
	tlsConf := &tls.Config{RootCAs: srv.Client().Transport.(*http.Transport).TLSClientConfig.RootCAs}
	storekit.Each(t, func(t *testing.T, st core.Store) {
		hits.Store(0)
		lookups.Store(0)
		e := newEnv(t, st, events.Options{Resolve: resolve, TLS: tlsConf})
		en := e.entry("rebound", "https://example.com:"+port+"/hook")
		en.AllowPrivate = false
		e.mgr.Apply([]events.Entry{en})
		e.submit("An idea")
		waitFor(t, "a refused connection", 10*time.Second, func() bool {
			return strings.Contains(e.status("rebound").LastError, "refusing to connect to 127.0.0.1")
		})
		if hits.Load() != 0 {
			t.Fatalf("the loopback server was reached %d times", hits.Load())
		}
		en.AllowPrivate = true
		e.mgr.Apply([]events.Entry{en})
		waitFor(t, "delivery once private addresses are allowed", 15*time.Second, func() bool {
			return e.status("rebound").Pending == 0 && hits.Load() == 1
		})
	})
}
