package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"
)

// loadOps is the mixed workload: name, weight (out of 100), and how to build the request.
var loadOps = []struct {
	name   string
	weight int
}{
	{"create-feedback", 30}, {"create-idea", 10}, {"search", 25}, {"list", 15}, {"lookup", 10}, {"get", 5}, {"verify", 5},
}

// loadTarget is the workspace the load runs against, as the admin CLI set it up.
type loadTarget struct {
	base, key             string
	tags, products, users []string
	mu                    sync.Mutex
	created               []string // ids of records the load created, for lookups by id
}

func (t *loadTarget) remember(id string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.created) < 10_000 {
		t.created = append(t.created, id)
	} else {
		t.created[rand.IntN(len(t.created))] = id
	}
}

func (t *loadTarget) someID(rng *rand.Rand) string {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.created) == 0 {
		return ""
	}
	return t.created[rng.IntN(len(t.created))]
}

var loadSentences = []string{
	"The CSV export times out for files over five thousand rows.",
	"Love the new dashboard, it is much faster than before!",
	"Can you add SSO with Okta? Our security team requires it.",
	"The mobile app crashes when I open a board with attachments.",
	"How do I connect a second inbox to the same workspace?",
	"We were charged twice this month, please refund the duplicate.",
	"Dark mode would make the app much easier to use at night.",
	"Search is slow when the workspace has many records.",
}

var loadTerms = []string{"export", "dashboard", "sso okta", "crash", "inbox", "refund", "dark mode", "slow", "zzqx", "ÉTÉ"}

// request builds the i-th request of kind op; want is the status that counts as success.
func (t *loadTarget) request(op string, i int, rng *rand.Rand) (*http.Request, int) {
	var method, path, body string
	want := http.StatusOK
	switch op {
	case "create-feedback":
		method, path, want = "POST", "/api/records/feedback", http.StatusCreated
		body = mustJSON(map[string]string{"title": fmt.Sprintf("Load feedback %d: %s", i, loadTerms[i%len(loadTerms)]),
			"description":    loadSentences[i%len(loadSentences)] + " " + loadSentences[(i/7)%len(loadSentences)],
			"customer_email": fmt.Sprintf("user%d@company%d.com", rng.IntN(500), rng.IntN(80)), "source": "api"})
	case "create-idea":
		method, path, want = "POST", "/api/records/idea", http.StatusCreated
		idea := map[string]any{"title": fmt.Sprintf("Load idea %d", i), "description": "<p>" + loadSentences[i%len(loadSentences)] + "</p>"}
		if len(t.tags) > 0 {
			idea["tags"] = []string{t.tags[i%len(t.tags)]}
		}
		if len(t.products) > 0 {
			idea["product"] = t.products[i%len(t.products)]
		}
		if len(t.users) > 0 {
			idea["user"] = t.users[i%len(t.users)]
		}
		body = mustJSON(idea)
	case "search":
		method, path = "GET", "/api/records?record_type=Feedback&search="+url.QueryEscape(loadTerms[rng.IntN(len(loadTerms))])
	case "list":
		method, path = "GET", []string{"/api/records?record_type=Feedback&limit=50", "/api/records?record_type=Idea&sort=asc&limit=20"}[i%2]
	case "lookup":
		method, path = "GET", []string{"/api/records/tags", "/api/records/product", "/api/records/users"}[i%3]
	case "get":
		if id := t.someID(rng); id != "" {
			method, path = "GET", "/api/records/"+id
			break
		}
		fallthrough
	default: // verify
		method, path = "GET", "/api/records/verify"
	}
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	rq, _ := http.NewRequest(method, t.base+path, rd)
	rq.Header.Set("X-API-Key", t.key)
	if body != "" {
		rq.Header.Set("Content-Type", "application/json")
	}
	return rq, want
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// loadSample is one request of the load: when it was due, how long until its answer, and the outcome.
type loadSample struct {
	due     time.Duration // since the start of the load
	latency time.Duration // from when it was due, so a stalled generator cannot hide a slow server
	op      string
	err     string // "" on success; else "status 500", "timeout", "dropped: …"
}

// runOpenLoop sends rate requests per second for dur, each at its due time whatever happened to the
// earlier ones (open loop), with at most maxInFlight outstanding; a request due when that many are
// outstanding is counted as dropped. It returns when every request has answered or timed out.
func runOpenLoop(ctx context.Context, t *loadTarget, rate float64, dur time.Duration, maxInFlight int, seed uint64) []loadSample {
	total := int(rate * dur.Seconds())
	interval := time.Duration(float64(time.Second) / rate)
	client := &http.Client{Timeout: 10 * time.Second,
		Transport: &http.Transport{MaxIdleConns: maxInFlight, MaxIdleConnsPerHost: maxInFlight, IdleConnTimeout: time.Minute}}
	defer client.CloseIdleConnections()
	rng := rand.New(rand.NewPCG(seed, 1))
	samples := make([]loadSample, 0, total)
	var mu sync.Mutex
	record := func(s loadSample) { mu.Lock(); samples = append(samples, s); mu.Unlock() }
	slots := make(chan struct{}, maxInFlight)
	var wg sync.WaitGroup
	start := time.Now()
	for i := 0; i < total; i++ {
		due := time.Duration(i) * interval
		if wait := time.Until(start.Add(due)); wait > 0 {
			select {
			case <-ctx.Done():
				i = total
				continue
			case <-time.After(wait):
			}
		}
		op := pickOp(rng)
		rq, want := t.request(op, i, rng)
		select {
		case slots <- struct{}{}:
		default:
			record(loadSample{due: due, op: op, err: fmt.Sprintf("dropped: %d requests outstanding", maxInFlight)})
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-slots }()
			record(send(client, rq, want, op, start, due, t))
		}()
	}
	wg.Wait()
	return samples
}

func pickOp(rng *rand.Rand) string {
	n := rng.IntN(100)
	for _, o := range loadOps {
		if n < o.weight {
			return o.name
		}
		n -= o.weight
	}
	return loadOps[len(loadOps)-1].name
}

func send(client *http.Client, rq *http.Request, want int, op string, start time.Time, due time.Duration, t *loadTarget) loadSample {
	s := loadSample{due: due, op: op}
	res, err := client.Do(rq)
	if err != nil {
		s.latency = time.Since(start) - due
		s.err = "transport: " + shortErr(err)
		return s
	}
	body, rerr := io.ReadAll(io.LimitReader(res.Body, 4<<20))
	res.Body.Close()
	s.latency = time.Since(start) - due
	switch {
	case rerr != nil:
		s.err = "read body: " + shortErr(rerr)
	case res.StatusCode != want:
		s.err = fmt.Sprintf("status %d", res.StatusCode)
	case want == http.StatusCreated:
		var created struct{ ID string }
		if json.Unmarshal(body, &created) == nil && created.ID != "" {
			t.remember(created.ID)
		}
	}
	return s
}

// shortErr keeps the last part of a transport error, which names the cause without the URL.
func shortErr(err error) string {
	s := err.Error()
	if i := strings.LastIndex(s, ": "); i >= 0 {
		return s[i+2:]
	}
	return s
}
