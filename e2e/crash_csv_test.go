package e2e

import (
	"bytes"
	"fmt"
	"os"
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

// kill -9 during scheduled CSV imports (a connector with @every 1s on a folder). Each trial drops a new
// export into the folder, waits until an import is running and kills the daemon at a random point of it;
// the next daemon imports the interrupted file again. In the end every good row is a record exactly once
// and every file is archived.
func TestCrashDuringCSVImport(t *testing.T) {
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
		for trial := 0; trial < trials; trial++ {
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
		eventually(t, 120*time.Second, "every export archived", func() bool {
			left, _ := filepath.Glob(filepath.Join(inbox, "*.csv"))
			return len(left) == 0 && db.int(t, "SELECT count(*) FROM import_runs WHERE status = 'running'") == 0
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
		archived, _ := filepath.Glob(filepath.Join(inbox, "done", "export-*.csv"))
		var csvArchived int
		for _, a := range archived {
			if !bytes.HasSuffix([]byte(a), []byte(".errors.csv")) {
				csvArchived++
			}
		}
		if csvArchived != trials {
			t.Errorf("%d exports archived, want %d", csvArchived, trials)
		}
		var conns []struct{ Name, State, LastError string }
		do(t, "GET", d.url("/api/connectors"), key, "", &conns)
		figures(t, "trials=%d kills=%d kills_during_import=%d interrupted_runs_closed=%d rows=%d records=%d lost=0 duplicates=0 connector=%+v",
			trials, trials, duringImport, interrupted, trials*rows, total, conns)
	})
}
