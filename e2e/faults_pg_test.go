package e2e

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// pgCluster is a PostgreSQL cluster of the test's own that it may stop and start.
type pgCluster struct {
	t                     *testing.T
	url, dir, pgctl, opts string
}

// startPGCluster starts a throwaway cluster through .ci/postgres.sh, keeping what is needed to stop and
// start it again with the same settings.
func startPGCluster(t *testing.T) *pgCluster {
	t.Helper()
	if os.Getenv("FEEDBRIDGE_TEST_POSTGRES_URL") == "" {
		t.Skip("FEEDBRIDGE_TEST_POSTGRES_URL is unset: the tests with a PostgreSQL cluster of their own run where PostgreSQL is available (bash .ci/run)")
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
// without a restart, its insight workers catch up, and every acknowledged write is there once. Both insight
// workers are made to finish a job while PostgreSQL is down (the stand-in LLM holds their requests until
// then): their results are written once it is back, not when their claims' 5-minute lease runs out.
func TestFaultPostgresStopped(t *testing.T) {
	t.Parallel()
	pg := startPGCluster(t)
	llm := newFaultServer(llmAnswer(t), nil)
	llm.set("hold")
	srv := httptest.NewServer(llm)
	defer srv.Close()
	e := newEnv(t, pg.url, fmt.Sprintf("insights: {provider: openai, workers: 2, openai: {base_url: %q, api_key: %q, model: e2e-model}}\n",
		srv.URL+"/v1", llmKey))
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
	eventually(t, 20*time.Second, "both insight workers wait for the LLM", func() bool { return llm.count("hold") >= 2 })
	time.Sleep(time.Second)
	pg.stop()
	stoppedAt := time.Now()
	eventually(t, 20*time.Second, "/readyz reports the outage", func() bool { return status(t, "GET", d.url("/readyz"), "", "") == 503 })
	eventually(t, 20*time.Second, "writes fail with 5xx", func() bool { return bad.Load() > 5 })
	llm.set("ok")
	eventually(t, 20*time.Second, "both workers fail to store their results", func() bool {
		return d.logged("insights: complete job") >= 2
	})
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
	// The results the workers could not store during the outage are written once PostgreSQL is back, well
	// inside their claims' 5-minute lease, and the queue drains; nothing is failed, dropped or doubled.
	db := e.inspect(pg.url)
	checkJobs(t, db)
	eventually(t, 60*time.Second, "insight jobs drain after the outage, without waiting for a lease", func() bool {
		return db.int(t, "SELECT count(*) FROM queue_items WHERE queue = 'insights'") == 0
	})
	drained := time.Since(restarted)
	rewritten := d.logged("insights: complete job: written once the store was back")
	if rewritten < 2 {
		t.Errorf("%d results written after the outage, want the 2 held by the workers", rewritten)
	}
	checkJobs(t, db)
	// A done job leaves the queue, so its attempts are read from the log: no attempt failed, and no result
	// was given up for a second run after its lease.
	if n := d.logged("insights: job failed") + d.logged("the lease will expire and the job rerun"); n != 0 {
		t.Errorf("%d jobs failed or were given up: an unwritten result must not count as a failure", n)
	}
	if n := db.int(t, `SELECT count(*) FROM records r WHERE r.type = 'Feedback' AND (SELECT count(*) FROM insights i
		WHERE i.workspace_id = r.workspace_id AND i.record_id = r.id) <> 1`); n != 0 {
		t.Errorf("%d feedback records without exactly one insight", n)
	}
	figures(t, "faults=1 down_for=%v writes_ok=%d answered_5xx=%d resumed_after=%v results_written_after_outage=%d queue_drained_after=%v lost=0 duplicates=0",
		downFor.Round(100*time.Millisecond), ok.Load(), bad.Load(), resumedAfter.Round(100*time.Millisecond), rewritten,
		drained.Round(100*time.Millisecond))
}
