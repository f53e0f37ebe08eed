package e2e

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// csvExport writes one export of rows feedback rows (plus two bad rows) for trial. Odd trials carry an id
// column, so duplicates are found by external id; even trials have none, so by the content hash.
func csvExport(trial, rows int) []byte {
	var b bytes.Buffer
	withID := trial%2 == 1
	if withID {
		b.WriteString("id,title,description,email,created\n")
	} else {
		b.WriteString("title,description,email,created\n")
	}
	for i := 0; i < rows; i++ {
		if withID {
			fmt.Fprintf(&b, "T%d-%d,", trial, i)
		}
		title := fmt.Sprintf("csv %d-%d", trial, i)
		if i == rows/3 || i == 2*rows/3 {
			title = "" // a bad row: skipped into the errors file, never sinks the rest
		}
		fmt.Fprintf(&b, "%s,\"Row %d says the \"\"export\"\" is slow\",u%d@acme%d.com,2026-0%d-1%dT10:%02d:00Z\n",
			title, i, i%50, trial%5, 1+i%9, i%10, i%60)
	}
	return b.Bytes()
}

// kill -9 during CSV imports. Even trials drop a new export into the folder of a scheduled connector
// (@every 1s), wait until an import is running and kill the daemon at a random point of it; the next daemon
// imports the interrupted file again. Odd trials kill `feedbridge import csv` at a random point and run it
// again. In the end every good row is a record exactly once and every scheduled file is archived.
func TestCrashDuringCSVImport(t *testing.T) {
	t.Parallel()
	eachStore(t, func(t *testing.T, storeURL string) {
		e := newEnv(t, storeURL, "")
		ws, key := e.workspace("Crash CSV")
		inbox := filepath.Join(e.dir, "inbox")
		if err := os.MkdirAll(inbox, 0o755); err != nil {
			t.Fatal(err)
		}
		e.configure(storeURL, fmt.Sprintf(`insights: {provider: "off"}
connectors:
  csv:
    - name: crash-csv
      workspace: %s
      schedule: "@every 1s"
      path: %s/*.csv
      archive_dir: %s/done
`, ws, inbox, inbox))
		db := e.inspect(storeURL)
		trials, rows := crashTrials(t, 20), 6000
		duringImport := 0
		cliDir := filepath.Join(e.dir, "cli")
		if err := os.MkdirAll(cliDir, 0o755); err != nil {
			t.Fatal(err)
		}
		cliKills := 0
		for trial := 0; trial < trials; trial++ {
			if trial%2 == 1 {
				// Every other trial kills `feedbridge import csv` instead: no settle time, no lease.
				file := filepath.Join(cliDir, fmt.Sprintf("export-%03d.csv", trial))
				writeFileAtomic(t, file, csvExport(trial, rows))
				if killedImport(t, e, ws, file, jitter(100*time.Millisecond, 1200*time.Millisecond)) {
					cliKills++
				}
				if _, code, stderr := e.cliCode("import", "csv", "--workspace", ws, file); code != 0 {
					t.Fatalf("import csv again after the kill: exit %d: %s", code, stderr)
				}
				continue
			}
			writeFileAtomic(t, filepath.Join(inbox, fmt.Sprintf("export-%03d.csv", trial)), csvExport(trial, rows))
			runsBefore := db.int(t, "SELECT count(*) FROM import_runs")
			d := e.start()
			// Kill within the import: wait for a run of this connector to start, then a random part of it.
			eventually(t, 30*time.Second, "an import starts", func() bool {
				return db.int(t, "SELECT count(*) FROM import_runs") > runsBefore
			})
			time.Sleep(jitter(0, 1200*time.Millisecond))
			d.kill()
			if db.int(t, "SELECT count(*) FROM import_runs WHERE connector = 'crash-csv' AND status = 'running'") > 0 {
				duringImport++
			}
			db.expireLeases(t)
		}

		d := e.start()
		// Interrupted exports pile up while the trials kill early; the last daemon imports them all.
		eventually(t, 60*time.Second+time.Duration(trials)*3*time.Second, "every export archived", func() bool {
			left, _ := filepath.Glob(filepath.Join(inbox, "*.csv"))
			return len(left) == 0 && db.int(t, "SELECT count(*) FROM import_runs WHERE status = 'running' AND connector = 'crash-csv'") == 0
		})
		good := trials * (rows - 2)
		total := db.int(t, "SELECT count(*) FROM records WHERE type = 'Feedback'")
		distinct := db.int(t, "SELECT count(DISTINCT title) FROM records WHERE type = 'Feedback'")
		if total != good || distinct != good {
			t.Errorf("%d records with %d distinct titles, want %d of each (lost or duplicated rows)", total, distinct, good)
		}
		for _, probe := range []string{"csv 0-0", fmt.Sprintf("csv %d-%d", trials-1, rows-1)} {
			if n := db.int(t, "SELECT count(*) FROM records WHERE title = ?", probe); n != 1 {
				t.Errorf("%q stored %d times", probe, n)
			}
		}
		interrupted := db.int(t, "SELECT count(*) FROM import_runs WHERE status = 'failed'")
		// A killed CLI run has no daemon to close it: it stays "running" (see docs/reliability.md).
		cliLeftRunning := db.int(t, "SELECT count(*) FROM import_runs WHERE status = 'running' AND connector = 'cli'")
		archived, _ := filepath.Glob(filepath.Join(inbox, "done", "export-*.csv"))
		var csvArchived int
		for _, a := range archived {
			if !bytes.HasSuffix([]byte(a), []byte(".errors.csv")) {
				csvArchived++
			}
		}
		if scheduled := (trials + 1) / 2; csvArchived != scheduled {
			t.Errorf("%d exports archived, want %d", csvArchived, scheduled)
		}
		var conns []struct{ Name, State, LastError string }
		do(t, "GET", d.url("/api/connectors"), key, "", &conns)
		figures(t, "trials=%d kills=%d scheduled_kills_during_import=%d cli_kills_during_import=%d interrupted_runs_closed=%d cli_runs_left_running=%d rows=%d records=%d lost=0 duplicates=0 connector=%+v",
			trials, trials, duringImport, cliKills, interrupted, cliLeftRunning, trials*rows, total, conns)
	})
}

// killedImport runs `feedbridge import csv` and kills it with SIGKILL after the delay; it reports whether
// the import was still going then.
func killedImport(t *testing.T, e *env, ws, file string, after time.Duration) bool {
	t.Helper()
	cmd := exec.Command(binary, "--config", e.config, "import", "csv", "--workspace", ws, file)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	select {
	case <-done:
		return false
	case <-time.After(after):
		cmd.Process.Kill()
		<-done
		return true
	}
}
