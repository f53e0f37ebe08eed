package main

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/feedbridge/feedbridge/connectors"
	"github.com/feedbridge/feedbridge/connectors/webhook"
)

// The webhook arm posts signed JSON to /hooks/bench, served by the real webhook connector behind the API
// server's middleware, against the bare insert handler in the same run.
const (
	benchHook       = "bench"
	benchHookSecret = "bench-secret"
	hookRate        = 200 // requests per second of the open-loop trial
)

// webhookRoutes builds the connector over the harness's service and returns its routes, for api.Options.Extra.
func (h *pairHarness) webhookRoutes() (func(mux *http.ServeMux), error) {
	quiet := logrus.New()
	quiet.SetOutput(io.Discard)
	set, err := webhook.Build([]map[string]any{{"name": benchHook, "workspace": string(h.ws), "secret": benchHookSecret,
		"mapping": map[string]any{"title": "title", "description": "description", "source": "source"}}},
		connectors.Env{Service: h.svc, Log: logrus.NewEntry(quiet)})
	if err != nil {
		return nil, err
	}
	return set.(connectors.Router).Routes, nil
}

// hookRequest is one signed delivery.
func (h *pairHarness) hookRequest(body string) (*http.Request, error) {
	rq, err := http.NewRequest("POST", h.api.URL+"/hooks/"+benchHook, strings.NewReader(body))
	if err != nil {
		return nil, err
	}
	m := hmac.New(sha256.New, []byte(benchHookSecret))
	m.Write([]byte(body))
	rq.Header.Set("X-Signature", "sha256="+hex.EncodeToString(m.Sum(nil)))
	rq.Header.Set("Content-Type", "application/json")
	return rq, nil
}

func (h *pairHarness) sendHook(body string) (time.Duration, error) {
	rq, err := h.hookRequest(body)
	if err != nil {
		return 0, err
	}
	return h.timed(rq, http.StatusCreated)
}

// openLoop sends requests at a fixed rate for d, each on schedule whatever the earlier ones do, and
// returns each latency measured from its scheduled start (so a stall counts against every request behind it).
func openLoop(ctx context.Context, rate float64, d time.Duration, send func(i int) error) ([]time.Duration, int) {
	n := int(rate * d.Seconds())
	interval := time.Duration(float64(time.Second) / rate)
	var (
		mu     sync.Mutex
		lat    []time.Duration
		failed int
		wg     sync.WaitGroup
	)
	begin := time.Now()
	for i := 0; i < n && ctx.Err() == nil; i++ {
		due := begin.Add(time.Duration(i) * interval)
		time.Sleep(time.Until(due))
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			err := send(i)
			mu.Lock()
			defer mu.Unlock()
			lat = append(lat, time.Since(due))
			if err != nil {
				failed++
			}
		}(i)
	}
	wg.Wait()
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	return lat, failed
}

// addWebhookFigures runs both webhook trials and records their figures.
func (h *pairHarness) addWebhookFigures(ctx context.Context, p *Part, kind string, n int, cmd string) error {
	hookLat, bareLat, err := h.interleavePost(n,
		`{"title":"Export to CSV takes minutes %d","description":"from a webhook","source":"zapier"}`, h.sendHook)
	if err != nil {
		return err
	}
	a, b := Summarize(hookLat), Summarize(bareLat)
	key := "pair." + kind + ".webhook"
	add := func(suffix, label string, v float64, unit string) {
		p.add(Figure{Key: key + "." + suffix, Label: "webhook create: " + label, Value: v, Unit: unit, Cmd: cmd})
	}
	add("p50", "webhook p50", ms(a.P50), "ms")
	add("p99", "webhook p99", ms(a.P99), "ms")
	add("bare_p50", "bare handler p50", ms(b.P50), "ms")
	add("rps", "webhook, one client in sequence", 1/a.Mean.Seconds(), "requests/s")
	add("bare_rps", "bare handler, one client in sequence", 1/b.Mean.Seconds(), "requests/s")
	add("ratio", "throughput, webhook ÷ bare", b.Mean.Seconds()/a.Mean.Seconds(), "ratio")

	dur := 5 * time.Second
	if n >= 1000 {
		dur = 20 * time.Second
	}
	const body = `{"title":"Open loop delivery %d","description":"at a steady rate","source":"web"}`
	lat, failed := openLoop(ctx, hookRate, dur, func(i int) error {
		_, err := h.sendHook(fmt.Sprintf(body, i))
		return err
	})
	s := Summarize(lat)
	add("open_p50", fmt.Sprintf("p50 at %d requests/s for %s", hookRate, dur), ms(s.P50), "ms")
	add("open_p99", fmt.Sprintf("p99 at %d requests/s for %s", hookRate, dur), ms(s.P99), "ms")
	add("open_failed", fmt.Sprintf("failed at %d requests/s", hookRate), float64(failed), "requests")
	// The API's create at the same rate right after: what the machine and the store allow at that rate.
	lat, failed = openLoop(ctx, hookRate, dur, func(i int) error {
		_, err := h.do("POST", h.api.URL+"/api/records/feedback", fmt.Sprintf(body, i+1_000_000), 201)
		return err
	})
	s = Summarize(lat)
	add("api_open_p99", fmt.Sprintf("API create p99 at %d requests/s for %s, same run", hookRate, dur), ms(s.P99), "ms")
	add("api_open_failed", fmt.Sprintf("API create failed at %d requests/s", hookRate), float64(failed), "requests")
	return nil
}
