package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"
)

// shutdownTrials is how many SIGTERMs each kind of work gets.
const shutdownTrials = 3

// term sends SIGTERM, requires exit code 0, and returns how long the daemon took to stop.
func term(t *testing.T, d *daemon) time.Duration {
	t.Helper()
	t0 := time.Now()
	if code := d.stop(t, syscall.SIGTERM); code != 0 {
		t.Fatalf("exit code %d after SIGTERM; log: %v", code, d.logLines())
	}
	return time.Since(t0)
}

// afterTerm checks what a clean stop leaves behind: no lease held (another replica or the next start
// need not wait for one to expire), no insight job claimed, no import run left running.
func afterTerm(t *testing.T, db *inspector) {
	t.Helper()
	if n := db.int(t, "SELECT count(*) FROM leases"); n != 0 {
		t.Errorf("%d leases still held after SIGTERM", n)
	}
	if n := db.int(t, "SELECT count(*) FROM queue_items WHERE queue = 'insights' AND state = 'running'"); n != 0 {
		t.Errorf("%d insight jobs still claimed after SIGTERM", n)
	}
	if n := db.int(t, "SELECT count(*) FROM import_runs WHERE status = 'running'"); n != 0 {
		t.Errorf("%d import runs left running after SIGTERM", n)
	}
}

// SIGTERM in the middle of each kind of work: HTTP writes, an email poll, a CSV import and insight jobs.
// The daemon exits 0, releases what it holds, and after a restart (with no lease expired by hand) nothing
// is lost or duplicated.
func TestShutdownMidWork(t *testing.T) {
	t.Parallel()
	for _, kind := range []struct {
		name string
		run  func(t *testing.T, storeURL string)
	}{{"http", shutdownHTTP}, {"csv", shutdownCSV}, {"insights", shutdownInsights}, {"email", shutdownEmail}} {
		t.Run(kind.name, func(t *testing.T) { eachStore(t, kind.run) })
	}
}

// Requests that got an answer are stored once; requests that got none were never stored: a request the
// server accepted is finished, not cut off.
func shutdownHTTP(t *testing.T, storeURL string) {
	e := newEnv(t, storeURL, "insights: {provider: \"off\"}\n")
	_, key := e.workspace("Term HTTP")
	db := e.inspect(storeURL)
	var inputs []*apiInput
	var mu sync.Mutex
	var longest time.Duration
	for trial := 0; trial < shutdownTrials; trial++ {
		d := e.start()
		var wg sync.WaitGroup
		for w := 0; w < 4; w++ {
			wg.Go(func() {
				for i := 0; ; i++ {
					title := fmt.Sprintf("term %d-%d-%d", trial, w, i)
					in := &apiInput{key: fmt.Sprintf("term-%d-%d-%d", trial, w, i), path: "/api/records/feedback", title: title,
						body: fmt.Sprintf(`{"title":%q,"description":"slow export %d"}`, title, i)}
					mu.Lock()
					inputs = append(inputs, in)
					mu.Unlock()
					code, id := post(d, key, in.path, in.key, in.body)
					if code == 0 {
						return
					}
					if code != 201 {
						t.Errorf("%s: %d", in.key, code)
						return
					}
					mu.Lock()
					in.acked = id
					mu.Unlock()
				}
			})
		}
		time.Sleep(jitter(100*time.Millisecond, 500*time.Millisecond))
		longest = max(longest, term(t, d))
		wg.Wait()
		afterTerm(t, db)
	}
	d := e.start()
	byTitle := listTitles(t, d, key, "Feedback")
	acked := 0
	for _, in := range inputs {
		ids := byTitle[in.title]
		switch {
		case in.acked != "" && (len(ids) != 1 || ids[0] != in.acked):
			t.Errorf("%s acknowledged as %s, stored as %v", in.title, in.acked, ids)
		case in.acked == "" && len(ids) != 0:
			t.Errorf("%s got no answer but was stored as %v: a request was cut off mid-flight", in.title, ids)
		}
		if in.acked != "" {
			acked++
		}
	}
	figures(t, "sigterms=%d exit0=%d writes_acked=%d unanswered_and_absent=%d lost=0 duplicates=0 longest_stop=%v",
		shutdownTrials, shutdownTrials, acked, len(inputs)-acked, longest.Round(time.Millisecond))
}

// The import stops at a batch boundary and its run is closed; the next start imports the rest of the file
// without waiting for a lease.
func shutdownCSV(t *testing.T, storeURL string) {
	e := newEnv(t, storeURL, "")
	ws, _ := e.workspace("Term CSV")
	inbox := filepath.Join(e.dir, "inbox")
	if err := os.MkdirAll(inbox, 0o755); err != nil {
		t.Fatal(err)
	}
	e.configure(storeURL, fmt.Sprintf(`insights: {provider: "off"}
connectors:
  csv:
    - {name: term-csv, workspace: %s, schedule: "@every 1s", path: %s/*.csv, archive_dir: %s/done}
`, ws, inbox, inbox))
	db := e.inspect(storeURL)
	rows, mid := 8000, 0
	var longest time.Duration
	for trial := 0; trial < shutdownTrials; trial++ {
		writeFileAtomic(t, filepath.Join(inbox, fmt.Sprintf("export-%d.csv", trial)), csvExport(trial, rows))
		runsBefore := db.int(t, "SELECT count(*) FROM import_runs")
		d := e.start()
		eventually(t, 30*time.Second, "an import starts", func() bool { return db.int(t, "SELECT count(*) FROM import_runs") > runsBefore })
		time.Sleep(jitter(0, 500*time.Millisecond))
		if db.int(t, "SELECT count(*) FROM import_runs WHERE status = 'running'") > 0 {
			mid++
		}
		longest = max(longest, term(t, d))
		afterTerm(t, db)
	}
	e.start()
	eventually(t, 90*time.Second, "every export archived", func() bool {
		left, _ := filepath.Glob(filepath.Join(inbox, "*.csv"))
		return len(left) == 0 && db.int(t, "SELECT count(*) FROM import_runs WHERE status = 'running'") == 0
	})
	good := shutdownTrials * (rows - 2)
	if total, distinct := db.int(t, "SELECT count(*) FROM records"), db.int(t, "SELECT count(DISTINCT title) FROM records"); total != good || distinct != good {
		t.Errorf("%d records, %d distinct titles, want %d", total, distinct, good)
	}
	figures(t, "sigterms=%d exit0=%d during_import=%d rows=%d lost=0 duplicates=0 longest_stop=%v",
		shutdownTrials, shutdownTrials, mid, shutdownTrials*rows, longest.Round(time.Millisecond))
}

// Claimed jobs go back to the queue untouched; the next start finishes them, each exactly once.
func shutdownInsights(t *testing.T, storeURL string) {
	e := newEnv(t, storeURL, "insights: {provider: builtin, workers: 2}\n")
	_, key := e.workspace("Term insights")
	db := e.inspect(storeURL)
	claimed := 0
	var longest time.Duration
	for trial := 0; trial < shutdownTrials; trial++ {
		d := e.start()
		for i := 0; i < 150; i++ {
			if code, _ := post(d, key, "/api/records/feedback", "", insightFeedback(trial, i)); code != 201 {
				t.Fatalf("create: %d", code)
			}
		}
		if db.int(t, "SELECT count(*) FROM queue_items WHERE queue = 'insights' AND state = 'running'") > 0 {
			claimed++
		}
		longest = max(longest, term(t, d))
		afterTerm(t, db)
		if n := db.int(t, "SELECT count(*) FROM queue_items WHERE queue = 'insights' AND state = 'queued' AND attempts > 0"); n != 0 {
			t.Errorf("%d released jobs were charged an attempt", n)
		}
		checkJobs(t, db)
	}
	e.start()
	eventually(t, 60*time.Second, "the queue drains", func() bool {
		q, r, _ := checkJobs(t, db)
		return q+r == 0
	})
	_, _, done := checkJobs(t, db)
	counts := db.strings(t, `SELECT DISTINCT CAST((SELECT count(*) FROM insights i WHERE i.workspace_id = r.workspace_id AND i.record_id = r.id) AS TEXT) FROM records r`)
	if done != shutdownTrials*150 || len(counts) != 1 || counts[0] == "0" {
		t.Errorf("%d jobs done of %d, insight counts per record %v", done, shutdownTrials*150, counts)
	}
	figures(t, "sigterms=%d exit0=%d with_claimed_jobs=%d jobs=%d done=%d lost=0 duplicates=0 longest_stop=%v",
		shutdownTrials, shutdownTrials, claimed, shutdownTrials*150, done, longest.Round(time.Millisecond))
}

// The poller stops at a message boundary and gives up the mailbox's lease; the next start carries on.
func shutdownEmail(t *testing.T, storeURL string) {
	imapSrv := needDovecot(t)
	e := newEnv(t, storeURL, "")
	ws, _ := e.workspace("Term mail")
	c := imapSrv.client(t)
	boxes := imapSrv.mailboxes(t, c, "term", "", "-done")
	e.configure(storeURL, fmt.Sprintf(`insights: {provider: "off"}
connectors:
  email:
    - {name: term-mail, workspace: %s, server: %q, security: none, username: %q, password: %q, mailbox: %q, processed_mailbox: %q, poll_interval: 1s}
`, ws, imapSrv.addr, imapSrv.user, imapSrv.pass, boxes[0], boxes[1]))
	db := e.inspect(storeURL)
	sent := 0
	var longest time.Duration
	for trial := 0; trial < shutdownTrials; trial++ {
		for i := 0; i < 80; i++ {
			appendMessage(t, c, boxes[0], feedbackMail(fmt.Sprintf("%s-%d", boxes[0], trial), i, false))
			sent++
		}
		d := e.start()
		time.Sleep(jitter(50*time.Millisecond, 600*time.Millisecond))
		longest = max(longest, term(t, d))
		afterTerm(t, db)
	}
	e.start()
	eventually(t, 60*time.Second, "every message ingested", func() bool {
		return db.int(t, "SELECT count(*) FROM records") >= sent && countMessages(t, c, boxes[0]) == 0
	})
	time.Sleep(time.Second)
	if total, distinct := db.int(t, "SELECT count(*) FROM records"), db.int(t, "SELECT count(DISTINCT title) FROM records"); total != sent || distinct != sent {
		t.Errorf("%d records, %d distinct titles, want %d", total, distinct, sent)
	}
	if got := countMessages(t, c, boxes[1]); got != sent {
		t.Errorf("processed mailbox holds %d of %d messages", got, sent)
	}
	figures(t, "sigterms=%d exit0=%d messages=%d lost=0 duplicates=0 longest_stop=%v", shutdownTrials, shutdownTrials, sent, longest.Round(time.Millisecond))
}
