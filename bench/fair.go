package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/feedbridge/feedbridge/api"
	"github.com/feedbridge/feedbridge/core"
	"github.com/feedbridge/feedbridge/store"
)

// The fairness part: one workspace (the attacker) searches for a long term that every one of its records
// is a candidate for and none matches, from attackerLoops clients at once, keeping to the rate limit;
// another workspace (the victim) lists its records, paced under the same limit. The victim's latency is
// measured with no attacker and beside it, in the same run, at each of the attacker's sizes.
const attackerLoops = 12

// attackPath is the attacker's request: a search of 1,000 y's for one Feedback record.
var attackPath = "/api/records?record_type=Feedback&limit=1&search=" + strings.Repeat("y", 1000)

// fairHarness is the real API server (default rate limit) over one store with the two workspaces.
type fairHarness struct {
	st                   core.Store
	svc                  *core.Service
	srv                  *httptest.Server
	client               *http.Client
	attacker, victim     core.ID
	attackKey, victimKey string
	seeded               int          // attacker records so far
	inflight             atomic.Int64 // requests the server is still handling
}

func (e *env) partFair(ctx context.Context, kind string) *Part {
	p := &Part{ID: "fair-" + kind, Title: "One workspace's long searches beside another's listings (this command)", Store: storeName(kind)}
	sz := e.cfg.Sizes
	storeURL := "sqlite://" + filepath.Join(e.work, "fair.db")
	cmd := fmt.Sprintf("go run ./bench -mode %s -parts fair", e.cfg.Mode)
	if kind == "postgres" {
		if e.cfg.PostgresURL == "" {
			p.skip("no PostgreSQL: give -postgres URL or set FEEDBRIDGE_TEST_POSTGRES_URL")
			return p
		}
		u, drop, err := pgSchema(ctx, e.cfg.PostgresURL, "fbbench_")
		if err != nil {
			p.fail("%v", err)
			return p
		}
		defer drop()
		storeURL = u
		cmd += " -postgres " + shellQuote(redactURL(e.cfg.PostgresURL))
	}
	p.Commands = append(p.Commands, cmd)
	// The API runs in this process, so it runs with the collector's target the daemon sets for itself.
	if os.Getenv("GOGC") == "" {
		defer debug.SetGCPercent(debug.SetGCPercent(daemonGCPercent))
	}
	h, err := newFairHarness(ctx, storeURL)
	if err != nil {
		p.fail("%v", err)
		return p
	}
	defer h.close()
	if err := h.seed(ctx, h.victim, sz.FairVictim, "victim"); err != nil {
		p.fail("seed victim: %v", err)
		return p
	}
	for _, n := range sz.FairAttacker {
		if err := h.seed(ctx, h.attacker, n-h.seeded, "yyyy"); err != nil {
			p.fail("seed attacker: %v", err)
			return p
		}
		h.seeded = n
		quiet, loaded, att, err := h.interleaved(ctx, sz.FairListings)
		if err != nil {
			p.fail("%v", err)
			return p
		}
		q, l := Summarize(quiet), Summarize(loaded)
		key := fmt.Sprintf("fair.%s.%d.", kind, n)
		add := func(suffix, label string, v float64, unit string) {
			p.add(Figure{Key: key + suffix, Label: label, Value: v, Unit: unit, Size: n, Cmd: cmd})
		}
		add("victim_p50_alone", "victim listing p50, no attacker", ms(q.P50), "ms")
		add("victim_p99_alone", "victim listing p99, no attacker", ms(q.P99), "ms")
		add("victim_p50", "victim listing p50 beside the attacker", ms(l.P50), "ms")
		add("victim_p99", "victim listing p99 beside the attacker", ms(l.P99), "ms")
		add("victim_p99_ratio", "victim p99 beside the attacker ÷ alone", ms(l.P99)/ms(q.P99), "ratio")
		add("attacker_ok_rps", "attacker searches answered 200 per second", att.rate(200), "requests/s")
		add("attacker_p50", "attacker search p50 (200s)", ms(Summarize(att.lat).P50), "ms")
		p.Notes = append(p.Notes, fmt.Sprintf("%s attacker records: attacker statuses over %s: %s", count(n),
			att.elapsed.Round(time.Second), att.statusList()))
	}
	p.Notes = append(p.Notes, fmt.Sprintf("victim: %s records, %d listings (GET /api/records?record_type=Feedback) alone and %d beside the attacker, paced at %d/s, in %d alternating rounds; attacker: %d loops of GET %s…, pausing for Retry-After on 429; default rate limit (20/s, burst 40) per key",
		count(sz.FairVictim), sz.FairListings, sz.FairListings, victimRate, fairRounds, attackerLoops, attackPath[:60]))
	return p
}

// daemonGCPercent mirrors the constant of the same name in cli/serve.go, the daemon's collector target
// unless GOGC is set. With the attacker's searches holding one core, each collection cycle competes with
// the victim for the others; the part measures the daemon, so it collects as often as the daemon does.
const daemonGCPercent = 200

// victimRate paces the victim's listings under the default rate limit.
const victimRate = 15

// fairRounds splits each phase's listings into rounds that alternate the victim alone and beside the
// attacker, so that the machine's other load, which comes and goes over seconds, falls on both sides of the
// ratio alike rather than on whichever phase it happened to meet. Each round's attacker starts with a full
// burst of its rate limit: more rounds would measure the victim beside that burst ever more, not beside the
// sustained attack.
const fairRounds = 2

// settleAfterAttack is the pause after the attacker's handlers return, for the database to finish what the
// cancelled searches asked of it before the victim is measured alone again.
const settleAfterAttack = 250 * time.Millisecond

func newFairHarness(ctx context.Context, storeURL string) (*fairHarness, error) {
	st, err := store.Open(ctx, storeURL)
	if err != nil {
		return nil, err
	}
	h := &fairHarness{st: st, svc: core.NewService(st, core.Options{}),
		client: &http.Client{Timeout: 5 * time.Minute, Transport: &http.Transport{MaxIdleConnsPerHost: attackerLoops + 2}}}
	for _, w := range []struct {
		name string
		id   *core.ID
		key  *string
	}{{"Attacker", &h.attacker, &h.attackKey}, {"Victim", &h.victim, &h.victimKey}} {
		ws, err := h.svc.CreateWorkspace(ctx, w.name, core.PlanBusiness, 0)
		if err == nil {
			_, *w.key, err = h.svc.CreateKey(ctx, ws.ID, "bench")
		}
		if err != nil {
			st.Close()
			return nil, err
		}
		*w.id = ws.ID
	}
	quiet := logrus.New()
	quiet.SetOutput(io.Discard)
	handler := api.New(h.svc, api.Options{Log: logrus.NewEntry(quiet)}).Handler()
	h.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.inflight.Add(1)
		defer h.inflight.Add(-1)
		handler.ServeHTTP(w, r)
	}))
	return h, nil
}

func (h *fairHarness) close() {
	h.srv.Close()
	h.st.Close()
}

// seed adds n Feedback records to ws whose text holds word, through the batch path imports take.
func (h *fairHarness) seed(ctx context.Context, ws core.ID, n int, word string) error {
	base := time.Now().Add(-time.Duration(n) * time.Second)
	for done := 0; done < n; {
		batch := make([]core.Submission, 0, 1000)
		for ; len(batch) < cap(batch) && done < n; done++ {
			batch = append(batch, core.Submission{Type: core.RecordFeedback, Title: fmt.Sprintf("Report %d mentions %s", done, word),
				Description: fmt.Sprintf("The export of board %d is slow; %s said so twice.", done%97, word), Source: "csv",
				CreatedAt: base.Add(time.Duration(done) * time.Second)})
		}
		res, err := h.svc.SubmitBatch(ctx, ws, batch)
		if err != nil {
			return err
		}
		for _, r := range res {
			if r.Err != nil {
				return r.Err
			}
		}
	}
	if f, ok := h.st.(interface{ FlushIndex(context.Context) error }); ok {
		return f.FlushIndex(ctx)
	}
	return nil
}

// get sends one GET with key and returns its latency, status and Retry-After.
func (h *fairHarness) get(ctx context.Context, key, path string) (time.Duration, int, time.Duration, error) {
	rq, err := http.NewRequestWithContext(ctx, http.MethodGet, h.srv.URL+path, nil)
	if err != nil {
		return 0, 0, 0, err
	}
	rq.Header.Set("X-API-Key", key)
	start := time.Now()
	res, err := h.client.Do(rq)
	if err != nil {
		return 0, 0, 0, err
	}
	_, _ = io.Copy(io.Discard, res.Body)
	res.Body.Close()
	retry, _ := strconv.Atoi(res.Header.Get("Retry-After"))
	return time.Since(start), res.StatusCode, time.Duration(retry) * time.Second, nil
}

// victimListings sends n listings of the victim, paced at victimRate, and returns their latencies.
func (h *fairHarness) victimListings(ctx context.Context, n int) ([]time.Duration, error) {
	tick := time.NewTicker(time.Second / victimRate)
	defer tick.Stop()
	lat := make([]time.Duration, 0, n)
	for range n {
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-tick.C:
		}
		d, status, _, err := h.get(ctx, h.victimKey, "/api/records?record_type=Feedback")
		if err != nil {
			return nil, err
		}
		if status != http.StatusOK {
			return nil, fmt.Errorf("victim listing: status %d", status)
		}
		lat = append(lat, d)
	}
	return lat, nil
}

// attack is what the attacker's loops saw.
type attack struct {
	mu       sync.Mutex
	statuses map[int]int
	lat      []time.Duration // of the 200s
	elapsed  time.Duration
}

func (a *attack) rate(status int) float64 { return float64(a.statuses[status]) / a.elapsed.Seconds() }

func (a *attack) statusList() string {
	var parts []string
	for _, s := range []int{200, 429, 503} {
		parts = append(parts, fmt.Sprintf("%d × %d", a.statuses[s], s))
	}
	for s, c := range a.statuses {
		if s != 200 && s != 429 && s != 503 {
			parts = append(parts, fmt.Sprintf("%d × %d", c, s))
		}
	}
	return strings.Join(parts, ", ")
}

// interleaved measures n victim listings alone and n beside the attacker, in fairRounds alternating rounds.
func (h *fairHarness) interleaved(ctx context.Context, n int) (quiet, loaded []time.Duration, a *attack, err error) {
	a = &attack{statuses: map[int]int{}}
	for r := range fairRounds {
		m := (n*(r+1))/fairRounds - (n*r)/fairRounds
		q, err := h.victimListings(ctx, m)
		if err != nil {
			return nil, nil, nil, fmt.Errorf("victim alone: %w", err)
		}
		l, err := h.underAttack(ctx, a, m)
		if err != nil {
			return nil, nil, nil, fmt.Errorf("victim beside the attacker: %w", err)
		}
		quiet, loaded = append(quiet, q...), append(loaded, l...)
	}
	return quiet, loaded, a, nil
}

// underAttack runs the attacker's loops, lets them settle for a second, measures n victim listings beside
// them, then stops them. What the attacker saw is added to a.
func (h *fairHarness) underAttack(ctx context.Context, a *attack, n int) ([]time.Duration, error) {
	actx, stop := context.WithCancel(ctx)
	var wg sync.WaitGroup
	var failed atomic.Value
	start := time.Now()
	for range attackerLoops {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for actx.Err() == nil {
				d, status, retry, err := h.get(actx, h.attackKey, attackPath)
				if err != nil {
					if actx.Err() == nil {
						failed.Store(err)
					}
					return
				}
				a.mu.Lock()
				a.statuses[status]++
				if status == http.StatusOK {
					a.lat = append(a.lat, d)
				}
				a.mu.Unlock()
				if status == http.StatusTooManyRequests {
					select {
					case <-actx.Done():
					case <-time.After(max(retry, 50*time.Millisecond)):
					}
				}
			}
		}()
	}
	time.Sleep(time.Second)
	lat, err := h.victimListings(ctx, n)
	stop()
	wg.Wait()
	a.elapsed += time.Since(start)
	// The next round's listings alone must not meet the attacker's cancelled searches still winding down in
	// the server or the database.
	for h.inflight.Load() > 0 && ctx.Err() == nil {
		time.Sleep(10 * time.Millisecond)
	}
	time.Sleep(settleAfterAttack)
	if err == nil {
		if v, ok := failed.Load().(error); ok {
			err = fmt.Errorf("attacker: %w", v)
		}
	}
	return lat, err
}
