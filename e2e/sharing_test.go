package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// sharingSize is the import's rows and the number of CLI commands: FEEDBRIDGE_SHARING_ROWS and
// FEEDBRIDGE_SHARING_COMMANDS, else 300,000 and 1,000, a tenth of each under the race detector (its
// SQLite is several times slower, and CI runs this test both ways).
func sharingSize(t *testing.T) (rows, commands int) {
	rows, commands = 300_000, 1000
	if raceBuild {
		rows, commands = rows/10, commands/10
	}
	for name, v := range map[string]*int{"FEEDBRIDGE_SHARING_ROWS": &rows, "FEEDBRIDGE_SHARING_COMMANDS": &commands} {
		if s := os.Getenv(name); s != "" {
			n, err := strconv.Atoi(s)
			if err != nil || n < 10 {
				t.Fatalf("%s=%q is not a number of at least 10", name, s)
			}
			*v = n
		}
	}
	return rows, commands
}

// bigExport is a CSV export of n feedback rows with descriptions (each queues an insight job), customers
// from a few hundred companies and tags.
func bigExport(n int) []byte {
	var b bytes.Buffer
	b.WriteString("Title,Body,Email,Tags\n")
	for i := range n {
		fmt.Fprintf(&b, "Export %d is slow,\"Exporting the monthly report takes minutes, please make it faster (%d).\",user%d@company%d.com,\"Bug, Billing\"\n",
			i, i, i%5000, i%300)
	}
	return b.Bytes()
}

// TestCLIBesideBusyDaemon: while a running daemon imports a large CSV file and its insight workers drain
// the jobs the import queued, mixed CLI commands run against the same SQLite store. Every one succeeds;
// those whose work does not grow with the store (tag list, key create, key revoke, import runs) answer
// within 1 s at the 99th percentile. Backups copy the whole store, so their times are reported apart.
//
// The latency target is for a machine that runs this test alone: on one busy with other work every process
// start is slow, whatever the store does. So it is asserted when FEEDBRIDGE_SHARING_STRICT=1 (CI runs the
// test alone that way) or when the machine was quiet as the test began (load average at most one per
// core), and otherwise only reported. The race detector's build is never held to it.
func TestCLIBesideBusyDaemon(t *testing.T) {
	rows, commands := sharingSize(t)
	strict := os.Getenv("FEEDBRIDGE_SHARING_STRICT") == "1"
	loadBefore := loadPerCore()
	e := newEnv(t, "", "")
	ws, _ := e.workspace("Sharing")
	e.cli("tag", "add", "--workspace", ws, "Bug", "Billing")
	inbox := filepath.Join(e.dir, "inbox")
	if err := os.MkdirAll(inbox, 0o755); err != nil {
		t.Fatal(err)
	}
	e.configure("", fmt.Sprintf(`insights: {provider: builtin, workers: 2}
connectors:
  csv:
    - name: big
      workspace: %s
      schedule: "@every 1s"
      path: %s/*.csv
      archive_dir: %s/done
`, ws, inbox, inbox))
	e.start()
	db := e.inspect("")
	writeFileAtomic(t, filepath.Join(inbox, "big.csv"), bigExport(rows))
	eventually(t, 60*time.Second, "the import starts", func() bool {
		return db.int(t, "SELECT count(*) FROM import_runs WHERE connector = 'big'") > 0
	})

	// busy: the import is running or insight jobs wait; sampled while the commands run.
	var busy atomic.Bool
	busy.Store(true)
	stopSampling := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		for {
			select {
			case <-stopSampling:
				return
			case <-time.After(200 * time.Millisecond):
			}
			busy.Store(db.int(t, "SELECT count(*) FROM import_runs WHERE connector = 'big' AND status = 'running'") > 0 ||
				db.int(t, "SELECT count(*) FROM queue_items WHERE queue = 'insights' AND state = 'queued'") > 0)
		}
	}()

	type result struct {
		kind    string
		took    time.Duration
		busy    bool
		failure string
	}
	results := make([]result, commands)
	keys := make(chan string, commands)
	backupDir := t.TempDir()
	jobs := make(chan int)
	var wg sync.WaitGroup
	start := time.Now()
	for range 4 {
		wg.Go(func() {
			for i := range jobs {
				var args []string
				switch i % 5 {
				case 0:
					args = []string{"tag", "list", "--workspace", ws}
				case 1:
					args = []string{"key", "create", "--workspace", ws, "--json"}
				case 2:
					args = []string{"key", "revoke", <-keys} // created by the command before it
				case 3:
					args = []string{"import", "runs", "--workspace", ws}
				case 4:
					args = []string{"tag", "list", "--workspace", ws, "--json"}
					if i%100 == 4 {
						args = []string{"backup", filepath.Join(backupDir, fmt.Sprintf("b%d.db", i))}
					}
				}
				r := result{kind: args[0] + " " + args[1], busy: busy.Load()}
				began := time.Now()
				out, code, stderr := e.cliCode(args...)
				r.took = time.Since(began)
				if code != 0 {
					r.failure = fmt.Sprintf("exit %d: %s", code, strings.TrimSpace(stderr))
				}
				switch args[0] {
				case "key":
					if args[1] == "create" {
						var k struct{ ID string }
						if err := json.Unmarshal([]byte(out), &k); err != nil || k.ID == "" {
							r.failure += " no key id in " + out
							k.ID = "000000000000000000000000" // lets the revoke that waits for it fail instead of hang
						}
						keys <- k.ID
					}
				case "backup":
					os.Remove(args[1]) // each copy is the whole store
				}
				results[i] = r
			}
		})
	}
	for i := range commands {
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	elapsed := time.Since(start)
	close(stopSampling)
	<-sampled

	var quick, backups []time.Duration
	byKind := map[string][]time.Duration{}
	duringWork := 0
	for i, r := range results {
		if r.failure != "" {
			t.Errorf("command %d (%s) failed: %s", i, r.kind, r.failure)
		}
		if r.busy {
			duringWork++
		}
		if r.kind == "backup "+filepath.Join(backupDir, fmt.Sprintf("b%d.db", i)) {
			backups = append(backups, r.took)
		} else {
			quick = append(quick, r.took)
			byKind[r.kind] = append(byKind[r.kind], r.took)
		}
	}
	if duringWork < commands*9/10 {
		t.Errorf("only %d of %d commands ran while the daemon was importing or draining insight jobs: the test did not test sharing", duringWork, commands)
	}
	p := func(ds []time.Duration, q float64) time.Duration {
		if len(ds) == 0 {
			return 0
		}
		slices.Sort(ds)
		return ds[min(len(ds)-1, int(q*float64(len(ds))))].Round(time.Millisecond)
	}
	figures(t, "rows=%d commands=%d during_import_or_drain=%d elapsed=%v p50=%v p99=%v max=%v backups=%d backup_p50=%v backup_max=%v",
		rows, commands, duringWork, elapsed.Round(time.Second), p(quick, 0.5), p(quick, 0.99), p(quick, 1), len(backups), p(backups, 0.5), p(backups, 1))
	kinds := slices.Sorted(maps.Keys(byKind))
	for _, k := range kinds {
		figures(t, "%s: n=%d p50=%v p99=%v max=%v", k, len(byKind[k]), p(byKind[k], 0.5), p(byKind[k], 0.99), p(byKind[k], 1))
	}
	switch p99 := p(quick, 0.99); {
	case raceBuild:
	case !strict && loadBefore > 1:
		t.Logf("p99 %v not held to the 1 s target: the load average was %.1f per core as the test began (FEEDBRIDGE_SHARING_STRICT=1 holds it)", p99, loadBefore)
	case p99 >= time.Second:
		t.Errorf("p99 of the commands beside the busy daemon is %v, the target is under 1 s", p99)
	}
}

// loadPerCore is the one-minute load average per core, 0 when unknown.
func loadPerCore() float64 {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return 0
	}
	f, _ := strconv.ParseFloat(strings.Fields(string(b) + " 0")[0], 64)
	return f / float64(runtime.NumCPU())
}
