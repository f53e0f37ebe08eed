package events_test

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/feedbridge/feedbridge/connectors"
	"github.com/feedbridge/feedbridge/core"
	"github.com/feedbridge/feedbridge/events"
)

const secret = "s3cret-key"

// received is one delivery a stand-in subscriber took, checked on arrival.
type received struct {
	ID, Type, Record string
	Status           string
	Signed           bool
}

// subscriber is a real HTTP server standing in for a subscriber: it checks every delivery's signature and
// event id and answers with answer (2xx by default).
type subscriber struct {
	t   *testing.T
	srv *httptest.Server
	mu  sync.Mutex
	got []received
	// answer writes the response to the n-th request (from 1); nil answers 204.
	answer func(w http.ResponseWriter, r *http.Request, n int)
	hits   int
}

func newSubscriber(t *testing.T, answer func(w http.ResponseWriter, r *http.Request, n int)) *subscriber {
	s := &subscriber{t: t, answer: answer}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.srv.Close)
	return s
}

func (s *subscriber) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	var ev struct {
		ID   string `json:"id"`
		Type string `json:"type"`
		Data struct {
			Record *struct {
				ID     string `json:"id"`
				Status string `json:"status"`
			} `json:"record"`
		} `json:"data"`
	}
	if err := json.Unmarshal(body, &ev); err != nil {
		s.t.Errorf("delivery body is not JSON: %v", err)
	}
	rec := received{ID: ev.ID, Type: ev.Type, Signed: verify(r.Header.Get(events.SignatureHeader), body)}
	if ev.Data.Record != nil {
		rec.Record, rec.Status = ev.Data.Record.ID, ev.Data.Record.Status
	}
	if r.Header.Get(events.EventIDHeader) != ev.ID || r.Method != http.MethodPost ||
		r.Header.Get("Content-Type") != "application/json; charset=utf-8" {
		s.t.Errorf("delivery %s %s: event id header %q, content type %q", r.Method, ev.ID, r.Header.Get(events.EventIDHeader), r.Header.Get("Content-Type"))
	}
	s.mu.Lock()
	s.hits++
	n := s.hits
	s.mu.Unlock()
	if s.answer != nil {
		s.answer(w, r, n)
	} else {
		w.WriteHeader(http.StatusNoContent)
	}
	if !rec.Signed {
		s.t.Errorf("delivery %s: bad signature", ev.ID)
	}
	s.mu.Lock()
	s.got = append(s.got, rec)
	s.mu.Unlock()
}

// verify checks a signature header as a subscriber would: t=<unix>,v1=<hex HMAC-SHA256 of "<t>.<body>">,
// and a time within five minutes.
func verify(header string, body []byte) bool {
	var ts, sig string
	for part := range strings.SplitSeq(header, ",") {
		k, v, _ := strings.Cut(part, "=")
		switch k {
		case "t":
			ts = v
		case "v1":
			sig = v
		}
	}
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte(ts + "." + string(body)))
	want := hex.EncodeToString(mac.Sum(nil))
	unix, err := strconv.ParseInt(ts, 10, 64)
	return err == nil && hmac.Equal([]byte(sig), []byte(want)) && time.Since(time.Unix(unix, 0)).Abs() < 5*time.Minute
}

func (s *subscriber) received() []received {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]received(nil), s.got...)
}

func (s *subscriber) count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.hits
}

// env is a workspace on a real store with a service whose changes write events, and a running manager.
type env struct {
	t   *testing.T
	st  core.Store
	svc *core.Service
	ws  core.ID
	mgr *events.Manager
	// retryAfters records each Retry-After the manager was given.
	mu          sync.Mutex
	retryAfters []time.Duration
}

func newEnv(t *testing.T, st core.Store, opts events.Options) *env {
	e := &env{t: t, st: st, svc: core.NewService(st, core.Options{})}
	w, err := e.svc.CreateWorkspace(t.Context(), "Acme", core.PlanPro, 0)
	if err != nil {
		t.Fatal(err)
	}
	e.ws = w.ID
	ctx, cancel := context.WithCancel(context.Background())
	opts.Queue, opts.Subscribe, opts.Holder = st, e.svc.SetSubscribers, "test-holder"
	if opts.Poll == 0 {
		opts.Poll = 20 * time.Millisecond
	}
	if opts.Delay == nil {
		opts.Delay = func(_ int, ra time.Duration) time.Duration {
			if ra > 0 {
				e.mu.Lock()
				e.retryAfters = append(e.retryAfters, ra)
				e.mu.Unlock()
			}
			return 30 * time.Millisecond
		}
	}
	e.mgr, err = events.New(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cancel(); e.mgr.Wait() })
	return e
}

// entry is a subscriber entry of the env's workspace posting to url; private addresses are allowed
// (the stand-ins listen on loopback) unless a test says otherwise.
func (e *env) entry(name, url string) events.Entry {
	en := *events.NewEntry()
	en.Name, en.Workspace, en.URL, en.Secret, en.AllowPrivate = name, string(e.ws), url, connectors.Secret(secret), true
	en.Events, en.Timeout = core.EventTypes, 2*time.Second
	return en
}

func (e *env) submit(title string) core.Record {
	e.t.Helper()
	res, err := e.svc.Submit(e.t.Context(), e.ws, core.Submission{Type: core.RecordIdea, Title: title})
	if err != nil {
		e.t.Fatal(err)
	}
	return res.Record
}

func (e *env) status(name string) core.SubscriberStatus {
	e.t.Helper()
	sts, err := e.mgr.Status(e.t.Context(), e.ws)
	if err != nil {
		e.t.Fatal(err)
	}
	for _, s := range sts {
		if s.Name == name {
			return s
		}
	}
	return core.SubscriberStatus{}
}

func waitFor(t *testing.T, what string, within time.Duration, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(within); !cond(); {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s", within, what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
