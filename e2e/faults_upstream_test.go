package e2e

import (
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// faultServer answers each request as its current mode says: ok, 500, 429, hang (nothing until the test
// moves on, then the connection is dropped), cut (headers and part of the body, then nothing), or hold
// (nothing until the test moves on, then the ok answer).
type faultServer struct {
	mode    atomic.Value // string
	release chan struct{}
	mu      sync.Mutex
	seen    map[string]int // requests per mode
	ok      func(w http.ResponseWriter, r *http.Request)
	partial func(w http.ResponseWriter)
}

func newFaultServer(ok func(w http.ResponseWriter, r *http.Request), partial func(w http.ResponseWriter)) *faultServer {
	f := &faultServer{release: make(chan struct{}), seen: map[string]int{}, ok: ok, partial: partial}
	f.mode.Store("ok")
	return f
}

// set switches the mode; leaving hang or cut drops the connections held so far, leaving hold answers them.
func (f *faultServer) set(mode string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if old := f.mode.Load().(string); old == "hang" || old == "cut" || old == "hold" {
		close(f.release)
		f.release = make(chan struct{})
	}
	f.mode.Store(mode)
}

func (f *faultServer) count(mode string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.seen[mode]
}

func (f *faultServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	mode := f.mode.Load().(string)
	f.mu.Lock()
	f.seen[mode]++
	release := f.release
	f.mu.Unlock()
	switch mode {
	case "500":
		http.Error(w, "upstream exploded", http.StatusInternalServerError)
	case "429":
		w.Header().Set("Retry-After", "1")
		http.Error(w, "slow down", http.StatusTooManyRequests)
	case "hang", "cut":
		if mode == "cut" && f.partial != nil {
			f.partial(w)
			w.(http.Flusher).Flush()
		}
		select {
		case <-release:
		case <-r.Context().Done():
		}
		// Drop the connection rather than finish the answer: the client sees a broken transfer.
		if hj, ok := w.(http.Hijacker); ok {
			if c, _, err := hj.Hijack(); err == nil {
				c.Close()
				return
			}
		}
		panic(http.ErrAbortHandler)
	case "hold":
		select {
		case <-release:
			f.ok(w, r)
		case <-r.Context().Done():
		}
	default:
		f.ok(w, r)
	}
}

// connectorState is one entry of GET /api/connectors.
type connectorState struct {
	Name          string `json:"name"`
	State         string `json:"state"`
	LastSuccessAt string `json:"last_success_at"`
	LastError     string `json:"last_error"`
}

func connectorStatus(t *testing.T, d *daemon, key, name string) connectorState {
	t.Helper()
	var cs []connectorState
	do(t, "GET", d.url("/api/connectors"), key, "", &cs)
	for _, c := range cs {
		if c.Name == name {
			return c
		}
	}
	return connectorState{}
}

// The HTTPS source of a scheduled CSV import answers 500, then 429, then hangs, then cuts the body off
// half-way, then recovers. Each fault is reported (GET /api/connectors, /metrics, the log) while the daemon
// keeps serving (/readyz stays 200: readiness is about the store, and a bad source must not take the API
// out of a load balancer); once the source recovers, the same daemon imports every row exactly once.
func TestFaultCSVSourceHTTPS(t *testing.T) {
	const rows = 50
	export := func(w io.Writer, upTo int) {
		io.WriteString(w, "id,title,description\n")
		for i := 0; i < upTo; i++ {
			fmt.Fprintf(w, "R%d,https row %d,the export is slow %d\n", i, i, i)
		}
	}
	f := newFaultServer(func(w http.ResponseWriter, _ *http.Request) { export(w, rows) },
		func(w http.ResponseWriter) { export(w, 10) })
	srv := httptest.NewTLSServer(f)
	defer srv.Close()
	// The daemon trusts the test server's certificate through SSL_CERT_FILE, as an operator would add a
	// private CA; nothing in the daemon is switched off for the test.
	ca := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("SSL_CERT_FILE", ca)
	f.set("500")

	e := newEnv(t, "", "")
	ws, key := e.workspace("CSV faults")
	e.configure("", fmt.Sprintf(`insights: {provider: "off"}
connectors:
  csv:
    - {name: https-feed, workspace: %s, schedule: "@every 1s", url: "%s/export.csv", archive_dir: %s, allow_private: true, timeout: 2s}
`, ws, srv.URL, filepath.Join(e.dir, "archive")))
	d := e.start()
	faults := 0
	for _, phase := range []struct{ mode, want string }{
		{"500", "500"}, {"429", "429"}, {"hang", "no data received"}, {"cut", ""},
	} {
		f.set(phase.mode)
		failedRuns := metric(t, d, "feedbridge_csv_runs_total", `status="failed"`)
		logged := d.logged("csv: import failed")
		eventually(t, 30*time.Second, phase.mode+" reported", func() bool {
			cs := connectorStatus(t, d, key, "https-feed")
			return cs.State == "error" && strings.Contains(cs.LastError, phase.want) &&
				metric(t, d, "feedbridge_csv_runs_total", `status="failed"`) > failedRuns && d.logged("csv: import failed") > logged
		})
		if code, names := failing(t, d); code != 200 || !slices.Contains(names, "csv:https-feed") {
			t.Errorf("/readyz %d naming %v during a source fault (%s), want 200 naming csv:https-feed", code, names, phase.mode)
		}
		faults += f.count(phase.mode)
	}
	f.set("ok")
	eventually(t, 30*time.Second, "the import recovers", func() bool {
		cs := connectorStatus(t, d, key, "https-feed")
		return cs.State == "running" && cs.LastError == "" && cs.LastSuccessAt != ""
	})
	if _, names := failing(t, d); slices.Contains(names, "csv:https-feed") {
		t.Errorf("/readyz still names the recovered source: %v", names)
	}
	time.Sleep(1500 * time.Millisecond) // another run or two: they must find only duplicates
	byTitle := listTitles(t, d, key, "Feedback")
	for i := 0; i < rows; i++ {
		if ids := byTitle[fmt.Sprintf("https row %d", i)]; len(ids) != 1 {
			t.Errorf("row %d stored %d times", i, len(ids))
		}
	}
	if len(byTitle) != rows {
		t.Errorf("%d records, want %d", len(byTitle), rows)
	}
	figures(t, "fault_modes=4 (500, 429, hang, cut body) faulty_requests=%d rows=%d lost=0 duplicates=0 restarts=0", faults, rows)
}

// llmKey is the API key of the stand-in endpoint; it must never show outside the Authorization header.
const llmKey = "sk-e2e-7f3c9a1b5d2e4f60a8b9c0d1e2f3a4b5"

// llmAnswer is the stand-in model: it checks the request and answers one insight quoting the feedback.
func llmAnswer(t *testing.T) func(w http.ResponseWriter, r *http.Request) {
	return func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/chat/completions" || r.Header.Get("Authorization") != "Bearer "+llmKey {
			t.Errorf("LLM request %s %s with Authorization %q", r.Method, r.URL.Path, r.Header.Get("Authorization"))
		}
		var req struct {
			Model    string
			Messages []struct{ Role, Content string }
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil || req.Model != "e2e-model" || len(req.Messages) != 2 {
			t.Errorf("LLM request body: %v %+v", err, req)
			http.Error(w, "bad request", 400)
			return
		}
		var in struct{ Text string }
		_ = json.Unmarshal([]byte(req.Messages[1].Content), &in)
		content, _ := json.Marshal(map[string]any{"insights": []map[string]any{{
			"kind": "problem", "summary": "CSV export times out", "quote": in.Text, "sentiment": "negative",
			"sentiment_score": -0.6, "themes": []string{"csv export"}, "tags": []string{},
		}}})
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"choices": []any{map[string]any{
			"finish_reason": "stop", "message": map[string]any{"role": "assistant", "content": string(content)}}}})
	}
}

// The OpenAI-compatible endpoint answers 500, then 429 with Retry-After, then hangs (the daemon gives up
// on each attempt after insights.openai.timeout); then it recovers. Failures are counted in /metrics and
// logged, no job is dropped or failed for good, /readyz stays 200, and once the endpoint answers every
// feedback gets its insights exactly once, without a restart.
func TestFaultOpenAIEndpoint(t *testing.T) {
	t.Parallel()
	f := newFaultServer(llmAnswer(t), nil)
	srv := httptest.NewServer(f)
	defer srv.Close()
	e := newEnv(t, "", "")
	_, key := e.workspace("LLM faults")
	e.configure("", fmt.Sprintf("insights: {provider: openai, workers: 2, openai: {base_url: %q, api_key: %q, model: e2e-model, timeout: 1s}}\n",
		srv.URL+"/v1", llmKey))
	db := e.inspect("")
	d := e.start()
	created := 0
	for _, phase := range []string{"500", "429", "hang"} {
		f.set(phase)
		failures := metric(t, d, "feedbridge_insight_job_failures_total")
		for i := 0; i < 3; i++ {
			if code, _ := post(d, key, "/api/records/feedback", "", fmt.Sprintf(`{"title":"llm %s %d","description":"The CSV export times out."}`, phase, i)); code != 201 {
				t.Fatalf("create: %d", code)
			}
			created++
		}
		switch phase {
		case "hang":
			// The endpoint never answers; the attempts end at the configured second, not at the default minute.
			eventually(t, 40*time.Second, "hung attempts given up after the configured timeout", func() bool {
				return f.count("hang") >= 2 && metric(t, d, "feedbridge_insight_job_failures_total", `final="false"`) > failures &&
					d.logged("insights: job failed, will retry", "error", "deadline") > 0
			})
		default:
			eventually(t, 30*time.Second, phase+" counted and logged", func() bool {
				return metric(t, d, "feedbridge_insight_job_failures_total", `final="false"`) > failures &&
					d.logged("insights: job failed, will retry", "error", phase) > 0
			})
		}
		code, names := failing(t, d)
		if code != 200 || (phase != "hang" && !slices.Contains(names, "insights:openai")) {
			t.Errorf("/readyz %d naming %v while the LLM endpoint fails (%s), want 200 naming insights:openai", code, names, phase)
		}
	}
	f.set("ok")
	eventually(t, 90*time.Second, "every job done after the endpoint recovers", func() bool {
		_, _, done := checkJobs(t, db)
		return done == created
	})
	if _, names := failing(t, d); len(names) != 0 {
		t.Errorf("/readyz still names %v once the LLM endpoint works again", names)
	}
	if n := db.int(t, "SELECT count(*) FROM insights WHERE extractor = 'openai'"); n != created {
		t.Errorf("%d insights for %d feedback", n, created)
	}
	for _, l := range d.logLines() {
		if strings.Contains(fmt.Sprint(l), llmKey) {
			t.Errorf("the LLM API key is in a log line: %v", l)
		}
	}
	faulty := f.count("500") + f.count("429") + f.count("hang")
	figures(t, "fault_modes=3 (500, 429 Retry-After, hang) faulty_requests=%d jobs=%d done=%d failed=0 restarts=0", faulty, created, created)
}
