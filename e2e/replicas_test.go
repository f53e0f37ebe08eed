package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// throwawayPostgres starts a PostgreSQL cluster of the test's own (so restarting it disturbs no other
// test), and returns its URL and a restart function.
func throwawayPostgres(t *testing.T) (url string, restart func()) {
	t.Helper()
	c := startPGCluster(t)
	return c.url, func() { c.ctl("-m", "fast", "-w", "-t", "60", "restart") }
}

// Three replicas of the real binary share one PostgreSQL.
func TestReplicasSharePostgres(t *testing.T) {
	pgURL, restartPG := throwawayPostgres(t)
	e := newEnv(t, pgURL, "")
	ws, key := e.workspace("Replicas")
	inbox := filepath.Join(e.dir, "inbox")
	os.MkdirAll(inbox, 0o755)
	// A CSV schedule is a leadership-guarded task: it must fire on one replica at a time.
	e = rewriteConfig(t, e, pgURL, fmt.Sprintf(`connectors:
  csv:
    - name: shared-schedule
      workspace: %s
      schedule: "@every 1s"
      path: %s/*.csv
      archive_dir: %s/done
`, ws, inbox, inbox))
	ds := []*daemon{e.start(), e.start(), e.start()}

	// Creates through all three land exactly once.
	var wg sync.WaitGroup
	var created atomic.Int64
	for i := 0; i < 90; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			var rec struct{ ID string }
			if r := do(t, "POST", ds[i%3].url("/api/records/feedback"), key, fmt.Sprintf(`{"title":"replica %d"}`, i), &rec); r.StatusCode == 201 {
				created.Add(1)
			}
		}(i)
	}
	wg.Wait()
	if created.Load() != 90 {
		t.Fatalf("%d of 90 creates succeeded", created.Load())
	}
	for _, d := range ds {
		seen := listAll(t, d, key, "Feedback")
		if len(seen) != 90 {
			t.Fatalf("replica %s sees %d records, want 90", d.addr, len(seen))
		}
		for id, n := range seen {
			if n != 1 {
				t.Fatalf("record %s listed %d times", id, n)
			}
		}
	}

	// Exactly one replica holds the schedule's lease.
	leader := waitForLeader(t, ds, "csv:shared-schedule", 70*time.Second)
	for _, d := range ds {
		if d != leader && acquisitions(d, "csv:shared-schedule") > 0 {
			t.Fatalf("replica %s also acquired the lease", d.addr)
		}
	}
	// After SIGKILL of the leader another replica takes over within 60 s.
	killedAt := time.Now()
	leader.cmd.Process.Signal(syscall.SIGKILL)
	<-leader.exited
	var rest []*daemon
	for _, d := range ds {
		if d != leader {
			rest = append(rest, d)
		}
	}
	next := waitForLeader(t, rest, "csv:shared-schedule", 60*time.Second)
	t.Logf("lease taken over by %s %.1fs after SIGKILL of the leader", next.addr, time.Since(killedAt).Seconds())

	// PostgreSQL restarted under load: the replicas recover without a restart of theirs.
	stopLoad := make(chan struct{})
	var loadOK, loadFail atomic.Int64
	var lw sync.WaitGroup
	for _, d := range rest {
		lw.Add(1)
		go func(d *daemon) {
			defer lw.Done()
			for i := 0; ; i++ {
				select {
				case <-stopLoad:
					return
				default:
				}
				r := do(t, "POST", d.url("/api/records/feedback"), key, fmt.Sprintf(`{"title":"load %s %d"}`, d.addr, i), nil)
				if r.StatusCode == 201 {
					loadOK.Add(1)
				} else {
					loadFail.Add(1)
				}
				time.Sleep(20 * time.Millisecond)
			}
		}(d)
	}
	time.Sleep(time.Second)
	restartPG()
	before := loadOK.Load()
	deadline := time.Now().Add(30 * time.Second)
	for loadOK.Load() < before+20 && time.Now().Before(deadline) {
		time.Sleep(200 * time.Millisecond)
	}
	close(stopLoad)
	lw.Wait()
	if loadOK.Load() < before+20 {
		t.Fatalf("writes did not resume within 30s of the PostgreSQL restart (%d ok, %d failed)", loadOK.Load(), loadFail.Load())
	}
	for _, d := range rest {
		if r := do(t, "GET", d.url("/readyz"), "", "", nil); r.StatusCode != 200 {
			t.Fatalf("replica %s not ready after the restart: %d", d.addr, r.StatusCode)
		}
	}
	t.Logf("PostgreSQL restart under load: %d writes ok, %d answered with an error while it was down", loadOK.Load(), loadFail.Load())
}

func rewriteConfig(t *testing.T, e *env, storeURL, extra string) *env {
	t.Helper()
	body := fmt.Sprintf("http:\n  listen: 127.0.0.1:0\n  rate_limit: {per_second: 10000, burst: 10000}\nstore:\n  url: %s\nlog: {level: info, format: json}\n%s", storeURL, extra)
	if err := os.WriteFile(e.config, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return e
}

func acquisitions(d *daemon, lease string) int {
	n := 0
	for _, l := range d.logLines() {
		if l["msg"] == "lease: acquired" && l["lease"] == lease {
			n++
		}
	}
	return n
}

func waitForLeader(t *testing.T, ds []*daemon, lease string, within time.Duration) *daemon {
	t.Helper()
	deadline := time.Now().Add(within)
	for time.Now().Before(deadline) {
		for _, d := range ds {
			if acquisitions(d, lease) > 0 {
				return d
			}
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Fatalf("no replica acquired %s within %v", lease, within)
	return nil
}
