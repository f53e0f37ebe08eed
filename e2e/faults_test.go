package e2e

import (
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/emersion/go-imap/v2/imapclient"
)

// pgCluster is a PostgreSQL cluster of the test's own that it may stop and start.
type pgCluster struct {
	t                     *testing.T
	url, dir, pgctl, opts string
}

// startPGCluster starts a throwaway cluster through .ci/postgres.sh, like throwawayPostgres, keeping what
// is needed to stop and start it again with the same settings.
func startPGCluster(t *testing.T) *pgCluster {
	t.Helper()
	if os.Getenv("FEEDBRIDGE_TEST_POSTGRES_URL") == "" {
		t.Skip("FEEDBRIDGE_TEST_POSTGRES_URL is unset: the PostgreSQL fault tests run where PostgreSQL is available (bash .ci/run)")
	}
	if os.Geteuid() != 0 {
		t.Skip("a throwaway PostgreSQL cluster is started as the postgres user, which needs root")
	}
	cmd := exec.Command("bash", "../.ci/postgres.sh")
	cmd.Env = append(os.Environ(), "FEEDBRIDGE_PG_THROWAWAY=1")
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("start throwaway PostgreSQL: %v", err)
	}
	c := &pgCluster{t: t}
	for _, line := range strings.Split(string(out), "\n") {
		if k, v, ok := strings.Cut(strings.TrimPrefix(line, "export "), "="); ok {
			switch k {
			case "FEEDBRIDGE_TEST_POSTGRES_URL":
				c.url = strings.Trim(v, "'")
			case "FEEDBRIDGE_TEST_POSTGRES_DIR":
				c.dir = strings.Trim(v, "'")
			}
		}
	}
	if c.url == "" || c.dir == "" {
		t.Fatalf("postgres.sh printed no URL and dir: %q", out)
	}
	t.Cleanup(func() {
		stop := exec.Command("bash", "../.ci/postgres.sh", "stop")
		stop.Env = append(os.Environ(), "FEEDBRIDGE_TEST_POSTGRES_DIR="+c.dir)
		stop.Run()
	})
	bins, _ := filepath.Glob("/usr/lib/postgresql/*/bin/pg_ctl")
	if len(bins) == 0 {
		t.Fatal("pg_ctl not found")
	}
	c.pgctl = bins[len(bins)-1]
	// postmaster.opts holds the command line the cluster was started with; pg_ctl start does not reuse it.
	opts, err := os.ReadFile(filepath.Join(c.dir, "data", "postmaster.opts"))
	if err != nil {
		t.Fatal(err)
	}
	fields := strings.Fields(strings.ReplaceAll(string(opts), `"`, ""))
	c.opts = strings.Join(fields[1:], " ")
	return c
}

func (c *pgCluster) ctl(args ...string) {
	c.t.Helper()
	args = append([]string{"-u", "postgres", "--", c.pgctl, "-D", filepath.Join(c.dir, "data"), "-l", filepath.Join(c.dir, "ctl.log")}, args...)
	if out, err := exec.Command("runuser", args...).CombinedOutput(); err != nil {
		c.t.Fatalf("pg_ctl %v: %v: %s", args, err, out)
	}
}

func (c *pgCluster) stop()  { c.ctl("-m", "fast", "-w", "-t", "60", "stop") }
func (c *pgCluster) start() { c.ctl("-w", "-t", "60", "-o", c.opts, "start") }

// errorReply is the contract's error body.
type errorReply struct {
	Success bool   `json:"success"`
	Error   string `json:"error"`
	Message string `json:"message"`
	ErrorID string `json:"error_id"`
}

// PostgreSQL stopped for a few seconds under load: writes answer 503 with an error_id that the log repeats,
// /readyz answers 503 and /metrics counts the 503s; once PostgreSQL is back, the same daemon serves again
// without a restart, its insight workers catch up, and every acknowledged write is there once.
func TestFaultPostgresStopped(t *testing.T) {
	t.Parallel()
	pg := startPGCluster(t)
	e := newEnv(t, pg.url, "insights: {provider: builtin, workers: 2}\n")
	_, key := e.workspace("PG outage")
	d := e.start()
	var (
		mu      sync.Mutex
		acked   = map[string]string{} // title → id
		bodies  []errorReply
		ok, bad atomic.Int64
	)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for w := 0; w < 3; w++ {
		wg.Go(func() {
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				title := fmt.Sprintf("outage %d-%d", w, i)
				req, _ := http.NewRequest("POST", d.url("/api/records/feedback"), strings.NewReader(
					fmt.Sprintf(`{"title":%q,"description":"The dashboard is slow today."}`, title)))
				req.Header.Set("x-api-key", key)
				req.Header.Set("Content-Type", "application/json")
				resp, err := client.Do(req)
				if err != nil {
					t.Errorf("no answer while PostgreSQL is down or back: %v", err)
					return
				}
				data, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				switch {
				case resp.StatusCode == 201:
					var rec struct{ ID string }
					_ = json.Unmarshal(data, &rec)
					mu.Lock()
					acked[title] = rec.ID
					mu.Unlock()
					ok.Add(1)
				case resp.StatusCode >= 500:
					var er errorReply
					if err := json.Unmarshal(data, &er); err != nil {
						t.Errorf("%d body is not the error shape: %s", resp.StatusCode, data)
					}
					mu.Lock()
					bodies = append(bodies, er)
					mu.Unlock()
					bad.Add(1)
				default:
					t.Errorf("unexpected %d: %s", resp.StatusCode, data)
				}
				time.Sleep(10 * time.Millisecond)
			}
		})
	}
	time.Sleep(time.Second)
	pg.stop()
	stoppedAt := time.Now()
	eventually(t, 20*time.Second, "/readyz reports the outage", func() bool { return status(t, "GET", d.url("/readyz"), "", "") == 503 })
	eventually(t, 20*time.Second, "writes fail with 5xx", func() bool { return bad.Load() > 5 })
	time.Sleep(2 * time.Second)
	pg.start()
	downFor := time.Since(stoppedAt)
	okAtStart := ok.Load()
	restarted := time.Now()
	eventually(t, 30*time.Second, "writes resume", func() bool { return ok.Load() > okAtStart+20 })
	resumedAfter := time.Since(restarted)
	eventually(t, 10*time.Second, "/readyz recovers", func() bool { return status(t, "GET", d.url("/readyz"), "", "") == 200 })
	close(stop)
	wg.Wait()

	// Fault reported: 503 bodies carry an error_id repeated in a log line, and /metrics counted them.
	mu.Lock()
	defer mu.Unlock()
	for _, b := range bodies {
		if b.Success || b.Error == "" || b.ErrorID == "" {
			t.Fatalf("5xx body %+v lacks error or error_id", b)
		}
	}
	eventually(t, 10*time.Second, "a 5xx answer's error_id in the log", func() bool {
		return d.logged("", "error_id", bodies[0].ErrorID) > 0
	})
	if n := metric(t, d, "feedbridge_http_requests_total", `status="503"`); n == 0 {
		t.Errorf("/metrics counted no 503 (%d 5xx answered)", len(bodies))
	}
	for _, b := range bodies {
		for _, leak := range []string{"SQLSTATE", "dial tcp", "pgx", "postgres://", "127.0.0.1"} {
			if strings.Contains(b.Message+b.Error, leak) {
				t.Errorf("error body leaks %q: %+v", leak, b)
			}
		}
	}
	// Nothing acknowledged was lost, nothing doubled, and the queue caught up.
	byTitle := listTitles(t, d, key, "Feedback")
	for title, id := range acked {
		if ids := byTitle[title]; len(ids) != 1 || ids[0] != id {
			t.Errorf("%s acknowledged as %s, stored as %v", title, id, ids)
		}
	}
	// A worker whose outcome could not be written during the outage leaves its job claimed until the claim's
	// 5-minute lease runs out (then it is retried); nothing is failed or dropped. The test lets the leases
	// run out at once instead of waiting.
	db := e.inspect(pg.url)
	checkJobs(t, db)
	held := db.int(t, "SELECT count(*) FROM insight_jobs WHERE state = 'running'")
	eventually(t, 30*time.Second, "the queue is idle", func() bool {
		return db.int(t, "SELECT count(*) FROM insight_jobs WHERE state = 'queued'") == 0
	})
	stuck := db.int(t, "SELECT count(*) FROM insight_jobs WHERE state = 'running' AND lease_until > now() + interval '1 minute'")
	db.expireLeases(t)
	eventually(t, 60*time.Second, "insight jobs drain after the outage", func() bool {
		return db.int(t, "SELECT count(*) FROM insight_jobs WHERE state <> 'done'") == 0
	})
	figures(t, "faults=1 down_for=%v writes_ok=%d answered_5xx=%d resumed_after=%v jobs_held_until_lease_expiry=%d lost=0 duplicates=0",
		downFor.Round(100*time.Millisecond), ok.Load(), bad.Load(), resumedAfter.Round(100*time.Millisecond), max(held, stuck))
}

// faultServer answers each request as its current mode says: ok, 500, 429, hang (nothing until the test
// moves on, then the connection is dropped), or cut (headers and part of the body, then nothing).
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

// set switches the mode; leaving hang or cut drops the connections held so far.
func (f *faultServer) set(mode string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if old := f.mode.Load().(string); old == "hang" || old == "cut" {
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
		if code := status(t, "GET", d.url("/readyz"), "", ""); code != 200 {
			t.Errorf("/readyz %d during a source fault (%s)", code, phase.mode)
		}
		faults += f.count(phase.mode)
	}
	f.set("ok")
	eventually(t, 30*time.Second, "the import recovers", func() bool {
		cs := connectorStatus(t, d, key, "https-feed")
		return cs.State == "waiting" && cs.LastError == "" && cs.LastSuccessAt != ""
	})
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

// The OpenAI-compatible endpoint answers 500, then 429 with Retry-After, then hangs; then it recovers.
// Failures are counted in /metrics and logged, no job is dropped or failed for good, /readyz stays 200,
// and once the endpoint answers every feedback gets its insights exactly once, without a restart.
func TestFaultOpenAIEndpoint(t *testing.T) {
	t.Parallel()
	f := newFaultServer(llmAnswer(t), nil)
	srv := httptest.NewServer(f)
	defer srv.Close()
	e := newEnv(t, "", "")
	_, key := e.workspace("LLM faults")
	e.configure("", fmt.Sprintf("insights: {provider: openai, workers: 2, openai: {base_url: %q, api_key: %q, model: e2e-model}}\n",
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
			eventually(t, 20*time.Second, "requests hang", func() bool { return f.count("hang") >= 2 })
			time.Sleep(2 * time.Second)
		default:
			eventually(t, 30*time.Second, phase+" counted and logged", func() bool {
				return metric(t, d, "feedbridge_insight_job_failures_total", `final="false"`) > failures &&
					d.logged("insights: job failed, will retry", "error", phase) > 0
			})
		}
		if code := status(t, "GET", d.url("/readyz"), "", ""); code != 200 {
			t.Errorf("/readyz %d while the LLM endpoint fails (%s)", code, phase)
		}
	}
	f.set("ok")
	eventually(t, 90*time.Second, "every job done after the endpoint recovers", func() bool {
		_, _, done := checkJobs(t, db)
		return done == created
	})
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

// tinyDisk mounts a tmpfs of size bytes for the test, or skips when mounting is not possible here.
func tinyDisk(t *testing.T, size string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "disk")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size="+size, "tmpfs", dir).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a small tmpfs here (%v: %s); docs/reliability.md describes the disk-full test", err, out)
	}
	t.Cleanup(func() {
		if out, err := exec.Command("umount", dir).CombinedOutput(); err != nil {
			t.Errorf("umount %s: %v: %s", dir, err, out)
		}
	})
	return dir
}

// fill writes zeros into path until the file system is full.
func fill(t *testing.T, path string) int64 {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	buf := make([]byte, 64<<10)
	var n int64
	for {
		w, err := f.Write(buf)
		n += int64(w)
		if err != nil {
			return n
		}
	}
}

// The SQLite file's disk fills up under load: writes answer 503 with the error shape and an error_id in
// the log, /metrics counts them, reads keep working; once space is freed the same daemon writes again,
// and the database is intact with every acknowledged write in it once.
func TestFaultSQLiteDiskFull(t *testing.T) {
	t.Parallel()
	disk := tinyDisk(t, "6m")
	storeURL := "sqlite://" + filepath.Join(disk, "fb.db")
	e := newEnv(t, storeURL, "insights: {provider: \"off\"}\n")
	_, key := e.workspace("Disk full")
	d := e.start()
	acked := map[string]string{}
	write := func(i int) (int, errorReply) {
		title := fmt.Sprintf("disk %d", i)
		req, _ := http.NewRequest("POST", d.url("/api/records/feedback"), strings.NewReader(
			fmt.Sprintf(`{"title":%q,"description":%q}`, title, strings.Repeat("The export is slow. ", 40))))
		req.Header.Set("x-api-key", key)
		req.Header.Set("Content-Type", "application/json")
		resp, err := client.Do(req)
		if err != nil {
			t.Fatalf("no answer with a full disk: %v", err)
		}
		defer resp.Body.Close()
		var er errorReply
		data, _ := io.ReadAll(resp.Body)
		if resp.StatusCode == 201 {
			var rec struct{ ID string }
			_ = json.Unmarshal(data, &rec)
			acked[title] = rec.ID
		} else if err := json.Unmarshal(data, &er); err != nil {
			t.Fatalf("%d body not the error shape: %s", resp.StatusCode, data)
		}
		return resp.StatusCode, er
	}
	i := 0
	for ; i < 50; i++ {
		if code, _ := write(i); code != 201 {
			t.Fatalf("write before the disk filled: %d", code)
		}
	}
	filler := filepath.Join(disk, "filler")
	filled := fill(t, filler)
	var full errorReply
	fullAnswers := 0
	for tries := 0; tries < 5000 && fullAnswers < 5; tries++ {
		code, er := write(i)
		i++
		if code != 201 {
			if code != 503 || er.ErrorID == "" {
				t.Fatalf("write with a full disk: %d %+v, want 503 with an error_id", code, er)
			}
			full = er
			fullAnswers++
		}
	}
	if fullAnswers == 0 {
		t.Fatal("the disk never filled up for the daemon")
	}
	eventually(t, 10*time.Second, "the disk-full answer's error_id in the log", func() bool {
		return d.logged("", "error_id", full.ErrorID) > 0
	})
	if metric(t, d, "feedbridge_http_requests_total", `status="503"`) == 0 {
		t.Error("/metrics counted no 503")
	}
	readyz := status(t, "GET", d.url("/readyz"), "", "")
	if code := status(t, "GET", d.url("/api/records?record_type=Feedback&limit=5"), key, ""); code != 200 {
		t.Errorf("reads with a full disk: %d", code)
	}

	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	resumed := time.Now()
	eventually(t, 20*time.Second, "writes resume once space is freed", func() bool { code, _ := write(i); i++; return code == 201 })
	for j := 0; j < 20; j++ {
		if code, _ := write(i); code != 201 {
			t.Fatalf("write after space was freed: %d", code)
		}
		i++
	}
	byTitle := listTitles(t, d, key, "Feedback")
	for title, id := range acked {
		if ids := byTitle[title]; len(ids) != 1 || ids[0] != id {
			t.Errorf("%s acknowledged as %s, stored as %v", title, id, ids)
		}
	}
	if len(byTitle) != len(acked) {
		t.Errorf("%d records stored, %d acknowledged", len(byTitle), len(acked))
	}
	db := e.inspect(storeURL)
	if got := db.strings(t, "PRAGMA integrity_check"); len(got) != 1 || got[0] != "ok" {
		t.Errorf("integrity_check after the disk was full: %v", got)
	}
	figures(t, "faults=1 filler_bytes=%d answered_503=%d readyz_while_full=%d resumed_after=%v writes_acked=%d lost=0 duplicates=0 integrity=ok",
		filled, fullAnswers, readyz, time.Since(resumed).Round(10*time.Millisecond), len(acked))
}

// ownDovecot starts a Dovecot of the test's own through .ci/dovecot.sh, so that the test may stop and
// start it without disturbing the tests that share the CI's server.
type ownDovecot struct {
	dovecot
	t   *testing.T
	dir string
	cmd *exec.Cmd
}

func startOwnDovecot(t *testing.T) *ownDovecot {
	t.Helper()
	needDovecot(t) // the CI provides Dovecot; without it the test is skipped the same way
	cmd := exec.Command("bash", "../.ci/dovecot.sh")
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "FEEDBRIDGE_TEST_IMAP_ADDR=") {
			env = append(env, kv)
		}
	}
	cmd.Env = env
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("start Dovecot: %v", err)
	}
	o := &ownDovecot{t: t}
	for _, line := range strings.Split(string(out), "\n") {
		k, v, _ := strings.Cut(strings.TrimPrefix(line, "export "), "=")
		v = strings.Trim(v, "'")
		switch k {
		case "FEEDBRIDGE_TEST_IMAP_ADDR":
			o.addr = v
		case "FEEDBRIDGE_TEST_IMAP_USER":
			o.user = v
		case "FEEDBRIDGE_TEST_IMAP_PASS":
			o.pass = v
		case "FEEDBRIDGE_TEST_DOVECOT_DIR":
			o.dir = v
		}
	}
	if o.dir == "" {
		t.Fatalf("dovecot.sh printed no dir: %q", out)
	}
	t.Cleanup(func() {
		if o.cmd != nil {
			o.cmd.Process.Signal(syscall.SIGTERM) // the master takes its children down; SIGKILL would orphan them
			o.cmd.Wait()
		}
		stop := exec.Command("bash", "../.ci/dovecot.sh", "stop")
		stop.Env = append(os.Environ(), "FEEDBRIDGE_TEST_DOVECOT_DIR="+o.dir)
		stop.Run()
	})
	return o
}

// stop ends the server as a crash or a restart would for its clients: every session is cut (Dovecot's
// stop alone leaves running sessions to finish on their own), then the master stops and the port closes.
func (o *ownDovecot) stop() {
	o.t.Helper()
	conf := filepath.Join(o.dir, "dovecot.conf")
	if out, err := exec.Command("doveadm", "-c", conf, "kick", o.user).CombinedOutput(); err != nil {
		o.t.Logf("doveadm kick: %v: %s", err, out)
	}
	pidFile := filepath.Join(o.dir, "pid")
	if o.cmd != nil {
		o.cmd.Process.Signal(syscall.SIGTERM)
		o.cmd.Wait()
		o.cmd = nil
	} else if data, err := os.ReadFile(pidFile); err == nil {
		exec.Command("kill", strings.TrimSpace(string(data))).Run()
	}
	eventually(o.t, 20*time.Second, "Dovecot stops", func() bool {
		c, err := net.Dial("tcp", o.addr)
		if err == nil {
			c.Close()
		}
		return err != nil
	})
}

// start runs the same configuration again on the same port.
func (o *ownDovecot) start() {
	o.t.Helper()
	o.cmd = exec.Command("dovecot", "-F", "-c", filepath.Join(o.dir, "dovecot.conf"))
	if err := o.cmd.Start(); err != nil {
		o.t.Fatal(err)
	}
	eventually(o.t, 20*time.Second, "Dovecot answers", func() bool {
		c, err := imapclient.DialInsecure(o.addr, nil)
		if err != nil {
			return false
		}
		c.Close()
		return true
	})
}

// The IMAP server goes away in the middle of polling and comes back: the connector reports the fault
// (GET /api/connectors, the log, a stale last-success metric), reconnects with backoff without a restart of
// the daemon, and every message, delivered before, during and after the outage, makes one record.
func TestFaultIMAPRestart(t *testing.T) {
	t.Parallel()
	srv := startOwnDovecot(t)
	c := srv.client(t)
	boxes := srv.mailboxes(t, c, "restart", "", "-done")
	e := newEnv(t, "", "")
	ws, key := e.workspace("IMAP restart")
	e.configure("", fmt.Sprintf(`insights: {provider: "off"}
connectors:
  email:
    - {name: flaky, workspace: %s, server: %q, security: none, username: %q, password: %q, mailbox: %q, processed_mailbox: %q, poll_interval: 1s}
`, ws, srv.addr, srv.user, srv.pass, boxes[0], boxes[1]))
	db := e.inspect("")
	sent := 0
	deliver := func(n int) {
		c := srv.client(t)
		for i := 0; i < n; i++ {
			appendMessage(t, c, boxes[0], feedbackMail(fmt.Sprintf("%s-%d", boxes[0], sent), i, false))
		}
		sent += n
	}
	deliver(150)
	d := e.start()
	eventually(t, 30*time.Second, "ingestion starts", func() bool { return db.int(t, "SELECT count(*) FROM records") > 0 })
	down := time.Now()
	srv.stop() // mid-poll, or just after it
	eventually(t, 30*time.Second, "the outage is reported", func() bool {
		cs := connectorStatus(t, d, key, "flaky")
		return cs.State == "error" && cs.LastError != "" && d.logged("email: mailbox poll failed") > 0
	})
	reported := time.Since(down)
	time.Sleep(2 * time.Second)
	srv.start()
	downFor := time.Since(down)
	deliver(50)
	back := time.Now()
	eventually(t, 60*time.Second, "every message ingested after the restart", func() bool {
		return db.int(t, "SELECT count(*) FROM records") >= sent && countMessages(t, srv.client(t), boxes[0]) == 0
	})
	recovered := time.Since(back)
	time.Sleep(time.Second)
	if total, distinct := db.int(t, "SELECT count(*) FROM records"), db.int(t, "SELECT count(DISTINCT title) FROM records"); total != sent || distinct != sent {
		t.Errorf("%d records, %d distinct, want %d", total, distinct, sent)
	}
	if cs := connectorStatus(t, d, key, "flaky"); cs.State != "running" {
		t.Errorf("connector after recovery: %+v", cs)
	}
	if metric(t, d, "feedbridge_email_last_success_timestamp_seconds") < float64(back.Unix()) {
		t.Error("last-success metric did not move after recovery")
	}
	figures(t, "faults=1 down_for=%v reported_after=%v messages=%d recovered_in=%v lost=0 duplicates=0 restarts=0",
		downFor.Round(100*time.Millisecond), reported.Round(100*time.Millisecond), sent, recovered.Round(100*time.Millisecond))
}
