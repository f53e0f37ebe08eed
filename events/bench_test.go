package events_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/feedbridge/feedbridge/api"
	"github.com/feedbridge/feedbridge/core"
	"github.com/feedbridge/feedbridge/events"
	"github.com/feedbridge/feedbridge/store/postgres"
	"github.com/feedbridge/feedbridge/store/postgres/pgtest"
	"github.com/feedbridge/feedbridge/store/sqlite"
)

// benchStores runs fn with each store kind and the change rate the issue asks delivery to keep up with.
// The PostgreSQL store gets the daemon's default pool rather than the small one of the tests.
func benchStores(b *testing.B, fn func(b *testing.B, st core.Store, rate int)) {
	b.Run("sqlite", func(b *testing.B) {
		st, err := sqlite.Open(context.Background(), filepath.Join(b.TempDir(), "fb.db"))
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { st.Close() })
		fn(b, st, 500)
	})
	b.Run("postgres", func(b *testing.B) {
		u, err := url.Parse(pgtest.URL(b))
		if err != nil {
			b.Fatal(err)
		}
		q := u.Query()
		q.Del("pool_max_conns")
		u.RawQuery = q.Encode()
		st, err := postgres.Open(context.Background(), u.String())
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { st.Close() })
		fn(b, st, 1000)
	})
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

// Changes are written as the importers write them: created records in batches of up to writeBatch, one
// transaction each, every record with its own record.created event. A writer takes the changes due by
// then, so that the rate holds however long one transaction takes on a loaded machine, and writeBatch
// bounds how far a late writer catches up at once.
const (
	writers    = 8
	writeBatch = 50
)

// write submits n changes at rate per second and returns how long they took.
func (e *benchEnv) write(b *testing.B, n, rate int) time.Duration {
	var next atomic.Int64 // changes taken by a writer
	var wg sync.WaitGroup
	start := time.Now()
	for range writers {
		wg.Go(func() {
			for {
				from := next.Load()
				if from >= int64(n) {
					return
				}
				due := min(int64(n), int64(time.Since(start)*time.Duration(rate)/time.Second)+1)
				if due <= from {
					time.Sleep(time.Until(start.Add(time.Duration(from+1) * time.Second / time.Duration(rate))))
					continue
				}
				to := min(due, from+writeBatch)
				if !next.CompareAndSwap(from, to) {
					continue
				}
				subs := make([]core.Submission, 0, to-from)
				for i := from + 1; i <= to; i++ {
					subs = append(subs, core.Submission{Type: core.RecordFeedback, Title: fmt.Sprintf("Change %d", i),
						Description: "The export to CSV is slow for large reports"})
				}
				res, err := e.svc.SubmitBatch(context.Background(), e.ws, subs)
				if err != nil {
					b.Error(err)
					return
				}
				for _, r := range res {
					if !r.Created {
						b.Errorf("change not written: %v", r.Err)
						return
					}
				}
			}
		})
	}
	wg.Wait()
	return time.Since(start)
}

// BenchmarkDelivery: with one subscriber answering in 1 ms, changes are written at the rate (500/s on
// SQLite, 1,000/s on PostgreSQL) for five seconds while delivery runs (see write): changes/s is what the writers
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

// BenchmarkSlowSubscriberWrites: latency of POST /api/records/feedback through the real API server, 4 clients
// writing back to back, in three arms that take turns, each for armFor, in an order that rotates every round:
// no subscriber; a subscriber configured but no delivery running (its events are written, nobody sends them:
// the cost of the outbox row alone); and the subscriber delivering, answering in 5 s. Each arm starts right
// after the manager is given its set, so all three start from the same state, and lasts longer than one
// answer, so that the delivering arm includes deliveries settling and the next ones being claimed.
// Each round gives a ratio of its own: p99 with the slow subscriber ÷ p99 without any, of arms run within
// seconds of each other, so that the other load on the machine, which drifts over a run, weighs on both
// alike. ratio is the median of the rounds' ratios (≤ 1.1: a slow subscriber does not slow writes), and
// ratio-min and ratio-max their spread; ratio-pooled is the same p99 ratio over every request of every
// round, which one round caught in a burst of load elsewhere can move on its own. outbox-ratio is the
// median of the rounds' p99 with the outbox alone ÷ p99 without (outbox-ratio-pooled over all requests).
// cpu-us/req-<arm> is the process's CPU time per request of that arm (server, clients, store, delivery, and
// whatever background work of the store falls in it), which the other load on the machine moves far less
// than a latency.
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
		c := &poster{b: b, url: srv.URL + "/api/records/feedback", key: key,
			client: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 8}}}
		const without, outbox, with = 0, 1, 2
		arms := [3]func(){
			without: func() { m.Apply(nil) },
			outbox: func() {
				m.Apply(nil)
				e.svc.SetSubscribers([]core.Subscriber{e.entry().Subscriber()})
			},
			with: func() { m.Apply([]events.Entry{e.entry()}) },
		}
		for _, set := range arms { // warm-up: every arm once, shortly
			set()
			c.run(time.Second)
		}
		var all [3][]time.Duration
		var ratios, outboxRatios []float64
		var cpu [3]time.Duration
		for round := 0; b.Loop(); round++ {
			var lat [3][]time.Duration
			for i := range arms {
				arm := (i + round) % len(arms)
				arms[arm]()
				cpu0 := processCPU()
				lat[arm] = c.run(armFor)
				cpu[arm] += processCPU() - cpu0
				all[arm] = append(all[arm], lat[arm]...)
			}
			ratios = append(ratios, p99(lat[with])/p99(lat[without]))
			outboxRatios = append(outboxRatios, p99(lat[outbox])/p99(lat[without]))
		}
		for arm, name := range [3]string{"without", "outbox", "with"} {
			b.ReportMetric(float64(cpu[arm].Microseconds())/float64(len(all[arm])), "cpu-us/req-"+name)
		}
		b.ReportMetric(p99(all[without]), "p99-ms-without")
		b.ReportMetric(p99(all[outbox]), "p99-ms-outbox")
		b.ReportMetric(p99(all[with]), "p99-ms-with")
		b.ReportMetric(float64(len(all[with])), "requests-with")
		b.ReportMetric(median(ratios), "ratio")
		b.ReportMetric(slices.Min(ratios), "ratio-min")
		b.ReportMetric(slices.Max(ratios), "ratio-max")
		b.ReportMetric(p99(all[with])/p99(all[without]), "ratio-pooled")
		b.ReportMetric(median(outboxRatios), "outbox-ratio")
		b.ReportMetric(p99(all[outbox])/p99(all[without]), "outbox-ratio-pooled")
	})
}

// armFor is how long one arm of BenchmarkSlowSubscriberWrites lasts: longer than the slow subscriber's answer.
const armFor = 6 * time.Second

// poster creates feedback through the API from 4 clients at once, back to back.
type poster struct {
	b      *testing.B
	url    string
	key    string
	client *http.Client
	seq    atomic.Int64
}

// run posts until d has passed and returns every request's latency.
func (p *poster) run(d time.Duration) []time.Duration {
	var mu sync.Mutex
	var lat []time.Duration
	var wg sync.WaitGroup
	end := time.Now().Add(d)
	for range 4 {
		wg.Go(func() {
			var mine []time.Duration
			defer func() {
				mu.Lock()
				lat = append(lat, mine...)
				mu.Unlock()
			}()
			for time.Now().Before(end) {
				n := p.seq.Add(1)
				body := fmt.Sprintf(`{"title":"Feedback %d","description":"The export is slow","customer_email":"c%d@acme.com"}`, n, n%50)
				req, _ := http.NewRequest("POST", p.url, strings.NewReader(body))
				req.Header.Set("x-api-key", p.key)
				req.Header.Set("Content-Type", "application/json")
				t0 := time.Now()
				res, err := p.client.Do(req)
				if err != nil {
					p.b.Error(err)
					return
				}
				_, _ = io.Copy(io.Discard, res.Body)
				res.Body.Close()
				mine = append(mine, time.Since(t0))
				if res.StatusCode != http.StatusCreated {
					p.b.Errorf("status %d", res.StatusCode)
					return
				}
			}
		})
	}
	wg.Wait()
	return lat
}

// processCPU is the CPU time the process has used so far, user and system, every goroutine counted.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// median is the median of xs (sorted in place); of an even count, the mean of the middle two.
func median(xs []float64) float64 {
	slices.Sort(xs)
	n := len(xs)
	return (xs[(n-1)/2] + xs[n/2]) / 2
}

// p99 is the 99th percentile of ds in milliseconds (ds is sorted in place).
func p99(ds []time.Duration) float64 {
	slices.Sort(ds)
	return float64(ds[len(ds)*99/100].Microseconds()) / 1000
}
