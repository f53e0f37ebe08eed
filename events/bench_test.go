package events_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/feedbridge/feedbridge/api"
	"github.com/feedbridge/feedbridge/core"
	"github.com/feedbridge/feedbridge/events"
	"github.com/feedbridge/feedbridge/store/postgres/pgtest"
	"github.com/feedbridge/feedbridge/store/sqlite"
)

// benchStores runs fn with each store kind and the change rate the issue asks delivery to keep up with.
func benchStores(b *testing.B, fn func(b *testing.B, st core.Store, rate int)) {
	b.Run("sqlite", func(b *testing.B) {
		st, err := sqlite.Open(context.Background(), filepath.Join(b.TempDir(), "fb.db"))
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { st.Close() })
		fn(b, st, 500)
	})
	b.Run("postgres", func(b *testing.B) { fn(b, pgtest.Open(b), 1000) })
}

// benchEnv is a workspace whose changes write events for one subscriber answering after delay.
type benchEnv struct {
	st       core.Store
	svc      *core.Service
	ws       core.ID
	srv      *httptest.Server
	received atomic.Int64
}

func newBenchEnv(b *testing.B, st core.Store, delay time.Duration) *benchEnv {
	e := &benchEnv{st: st, svc: core.NewService(st, core.Options{})}
	w, err := e.svc.CreateWorkspace(context.Background(), "Bench", core.PlanBusiness, 0)
	if err != nil {
		b.Fatal(err)
	}
	e.ws = w.ID
	e.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		time.Sleep(delay)
		e.received.Add(1)
	}))
	b.Cleanup(e.srv.Close)
	return e
}

func (e *benchEnv) entry() events.Entry {
	en := *events.NewEntry()
	en.Name, en.Workspace, en.URL, en.Secret, en.AllowPrivate = "bench", string(e.ws), e.srv.URL, "bench-secret", true
	en.Events, en.Timeout = core.EventTypes, 30*time.Second
	return en
}

func (e *benchEnv) manager(b *testing.B) (*events.Manager, context.CancelFunc) {
	ctx, cancel := context.WithCancel(context.Background())
	m, err := events.New(ctx, events.Options{Queue: e.st, Subscribe: e.svc.SetSubscribers, Holder: "bench", Poll: 50 * time.Millisecond})
	if err != nil {
		b.Fatal(err)
	}
	return m, func() { cancel(); m.Wait() }
}

// write submits n changes at rate per second from 8 writers and returns how long they took.
func (e *benchEnv) write(b *testing.B, n, rate int) time.Duration {
	var next atomic.Int64
	var wg sync.WaitGroup
	start := time.Now()
	for range 8 {
		wg.Go(func() {
			for i := next.Add(1); i <= int64(n); i = next.Add(1) {
				if wait := time.Until(start.Add(time.Duration(i) * time.Second / time.Duration(rate))); wait > 0 {
					time.Sleep(wait)
				}
				if _, err := e.svc.Submit(context.Background(), e.ws, core.Submission{Type: core.RecordFeedback,
					Title: fmt.Sprintf("Change %d", i), Description: "The export to CSV is slow for large reports"}); err != nil {
					b.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	return time.Since(start)
}

// BenchmarkDelivery: with one subscriber answering in 1 ms, changes are written at the rate (500/s on
// SQLite, 1,000/s on PostgreSQL) for five seconds while delivery runs: changes/s is what the writers
// achieved, delivered/s what the subscriber received over the same window, and backlog what was left when
// the writes ended. Then as many changes are written with delivery stopped and drained: drain/s is what
// delivery does flat out, and ratio = drain/s ÷ changes/s (≥ 1: delivery keeps up with that change rate);
// live-ratio = delivered/s ÷ changes/s while both ran on the same machine.
func BenchmarkDelivery(b *testing.B) {
	benchStores(b, func(b *testing.B, st core.Store, rate int) {
		e := newBenchEnv(b, st, time.Millisecond)
		n := rate * 5
		var changesPS, deliveredPS, drainPS, backlog float64
		for b.Loop() {
			m, stop := e.manager(b)
			m.Apply([]events.Entry{e.entry()})
			e.received.Store(0)
			took := e.write(b, n, rate)
			got := e.received.Load()
			changesPS, deliveredPS, backlog = float64(n)/took.Seconds(), float64(got)/took.Seconds(), float64(int64(n)-got)
			waitDrained(b, e, int64(n))
			stop()

			e.svc.SetSubscribers([]core.Subscriber{e.entry().Subscriber()}) // events written, nobody delivering
			e.write(b, n, 1_000_000)
			e.received.Store(0)
			m, stop = e.manager(b)
			start := time.Now()
			m.Apply([]events.Entry{e.entry()})
			waitDrained(b, e, int64(n))
			drainPS = float64(n) / time.Since(start).Seconds()
			stop()
		}
		b.ReportMetric(changesPS, "changes/s")
		b.ReportMetric(deliveredPS, "delivered/s")
		b.ReportMetric(backlog, "backlog")
		b.ReportMetric(drainPS, "drain/s")
		b.ReportMetric(drainPS/changesPS, "ratio")
		b.ReportMetric(deliveredPS/changesPS, "live-ratio")
	})
}

func waitDrained(b *testing.B, e *benchEnv, n int64) {
	for deadline := time.Now().Add(5 * time.Minute); e.received.Load() < n; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			b.Fatalf("only %d of %d events delivered", e.received.Load(), n)
		}
	}
}

// BenchmarkSlowSubscriberWrites: p99 of POST /api/records/feedback through the real API server, 4 clients,
// with no subscriber against a subscriber that answers in 5 s, the two arms alternating in blocks of 200
// in the same run: ratio = p99 with ÷ p99 without (≤ 1.1: a slow subscriber does not slow writes).
func BenchmarkSlowSubscriberWrites(b *testing.B) {
	benchStores(b, func(b *testing.B, st core.Store, _ int) {
		e := newBenchEnv(b, st, 5*time.Second)
		_, key, err := e.svc.CreateKey(context.Background(), e.ws, "bench")
		if err != nil {
			b.Fatal(err)
		}
		quiet := logrus.New()
		quiet.SetOutput(io.Discard)
		srv := httptest.NewServer(api.New(e.svc, api.Options{Log: logrus.NewEntry(quiet),
			RateLimit: api.RateLimit{PerSecond: 1e9, Burst: 1 << 30}}).Handler())
		b.Cleanup(srv.Close)
		m, stop := e.manager(b)
		b.Cleanup(stop)
		client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 8}}
		const block, clients = 200, 4
		var seq atomic.Int64
		arm := func() []time.Duration {
			var mu sync.Mutex
			var lat []time.Duration
			var next atomic.Int64
			var wg sync.WaitGroup
			for range clients {
				wg.Go(func() {
					for next.Add(1) <= block {
						body := fmt.Sprintf(`{"title":"Feedback %d","description":"The export is slow","customer_email":"c%d@acme.com"}`, seq.Add(1), seq.Load()%50)
						req, _ := http.NewRequest("POST", srv.URL+"/api/records/feedback", strings.NewReader(body))
						req.Header.Set("x-api-key", key)
						req.Header.Set("Content-Type", "application/json")
						t0 := time.Now()
						res, err := client.Do(req)
						d := time.Since(t0)
						if err != nil {
							b.Error(err)
							return
						}
						_, _ = io.Copy(io.Discard, res.Body)
						res.Body.Close()
						if res.StatusCode != http.StatusCreated {
							b.Errorf("status %d", res.StatusCode)
						}
						mu.Lock()
						lat = append(lat, d)
						mu.Unlock()
					}
				})
			}
			wg.Wait()
			return lat
		}
		var without, with []time.Duration
		arm() // warm-up
		for b.Loop() {
			m.Apply(nil)
			without = append(without, arm()...)
			m.Apply([]events.Entry{e.entry()})
			with = append(with, arm()...)
		}
		p99 := func(ds []time.Duration) float64 {
			slices.Sort(ds)
			return float64(ds[len(ds)*99/100].Microseconds()) / 1000
		}
		pw, po := p99(with), p99(without)
		b.ReportMetric(po, "p99-ms-without")
		b.ReportMetric(pw, "p99-ms-with")
		b.ReportMetric(pw/po, "ratio")
	})
}
