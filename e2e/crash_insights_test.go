package e2e

import (
	"fmt"
	"sync"
	"testing"
	"time"
)

// insightFeedback is one feedback whose description the builtin extractor always splits the same way, so
// every record of the test must end with the same number of insights.
func insightFeedback(trial, i int) string {
	return fmt.Sprintf(`{"title":"insight %d-%d","description":"The CSV export crashes every time on large reports. Please add a scheduled export to S3. Support was great though, thanks! Ticket %d."}`, trial, i, i)
}

// checkJobs asserts the queue's invariants on the stored state: no feedback has more than one insight job
// pending, no job failed, and a record has insights only once its job is done, that is gone from the queue
// (the insights and the job's removal are one transaction). A job that vanished shows once the queue has
// drained, as a record without insights. done counts the feedback with a description and no job left.
func checkJobs(t *testing.T, db *inspector) (queued, running, done int) {
	t.Helper()
	if n := db.int(t, `SELECT count(*) FROM (SELECT order_key FROM queue_items WHERE queue = 'insights'
		GROUP BY workspace_id, order_key HAVING count(*) > 1) twice`); n != 0 {
		t.Fatalf("%d feedback records with more than one insight job", n)
	}
	if n := db.int(t, "SELECT count(*) FROM queue_items WHERE queue = 'insights' AND state NOT IN ('queued', 'running')"); n != 0 {
		t.Fatalf("%d insight jobs failed or in an unknown state", n)
	}
	if n := db.int(t, `SELECT count(*) FROM queue_items j WHERE j.queue = 'insights'
		AND EXISTS (SELECT 1 FROM insights i WHERE i.workspace_id = j.workspace_id AND i.record_id = j.order_key)`); n != 0 {
		t.Fatalf("%d records have insights while their job is not done", n)
	}
	return db.int(t, "SELECT count(*) FROM queue_items WHERE queue = 'insights' AND state = 'queued'"),
		db.int(t, "SELECT count(*) FROM queue_items WHERE queue = 'insights' AND state = 'running'"),
		db.int(t, `SELECT count(*) FROM records r WHERE r.type = 'Feedback' AND r.description <> ''
			AND NOT EXISTS (SELECT 1 FROM queue_items j WHERE j.queue = 'insights' AND j.workspace_id = r.workspace_id
				AND j.order_key = r.id)`)
}

// kill -9 while the insight workers drain the queue. Each trial starts a daemon, writes a burst of
// feedback (each enqueues a job in its own transaction) and kills the daemon at a random point of the
// draining; the claims of the killed workers expire and the next daemon reclaims them. In the end every
// job is done, exactly once: each record has one set of insights, never two.
func TestCrashDuringInsightProcessing(t *testing.T) {
	t.Parallel()
	eachStore(t, func(t *testing.T, storeURL string) {
		e := newEnv(t, storeURL, "")
		_, key := e.workspace("Crash insights")
		e.configure(storeURL, "insights: {provider: builtin, workers: 2}\n")
		db := e.inspect(storeURL)
		trials, perTrial := crashTrials(t, 20), 120
		window := 600 * time.Millisecond
		withClaims, withBacklog, acked := 0, 0, 0
		for trial := 0; trial < trials; trial++ {
			d := e.start()
			var wg sync.WaitGroup
			var mu sync.Mutex
			for w := 0; w < 4; w++ {
				wg.Go(func() {
					for i := w; i < perTrial; i += 4 {
						code, _ := post(d, key, "/api/records/feedback", "", insightFeedback(trial, i))
						if code == 0 {
							return
						}
						mu.Lock()
						acked++
						mu.Unlock()
					}
				})
			}
			time.Sleep(jitter(0, window))
			d.kill()
			wg.Wait()
			// PostgreSQL finishes a statement whose client died (a claim, say) before it notices; let it, so
			// that the claims expired below are all there are.
			time.Sleep(200 * time.Millisecond)
			queued, running, _ := checkJobs(t, db)
			switch {
			case running > 0:
				withClaims++
			case queued > 0:
				withBacklog++
			default:
				window = max(window*3/4, 100*time.Millisecond) // the queue was drained: kill sooner
			}
			db.expireLeases(t)
		}

		d := e.start()
		drained := func() bool {
			q, r, _ := checkJobs(t, db)
			return q+r == 0
		}
		for deadline := time.Now().Add(90 * time.Second); !drained(); time.Sleep(200 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("the insight queue did not drain: %v", db.strings(t, `SELECT state || ' attempts=' || attempts || ' run_at=' || run_at ||
					' lease_until=' || coalesce(CAST(lease_until AS TEXT), '-') || ' by=' || leased_by FROM queue_items WHERE queue = 'insights'`))
			}
		}
		_, _, done := checkJobs(t, db)
		counts := db.strings(t, `SELECT DISTINCT CAST((SELECT count(*) FROM insights i WHERE i.workspace_id = r.workspace_id AND i.record_id = r.id) AS TEXT)
			FROM records r WHERE r.type = 'Feedback'`)
		if len(counts) != 1 || counts[0] == "0" {
			t.Errorf("records carry differing or no insight counts %v: an extraction was lost or stored twice", counts)
		}
		var ins []map[string]any
		var recs []struct{ ID string }
		do(t, "GET", d.url("/api/records?record_type=Feedback&limit=1"), key, "", &recs)
		if r := do(t, "GET", d.url("/api/records/"+recs[0].ID+"/insights"), key, "", &ins); r.StatusCode != 200 || len(ins) == 0 {
			t.Errorf("insights of %s: %d %v", recs[0].ID, r.StatusCode, ins)
		}
		figures(t, "trials=%d kills=%d kills_with_claimed_jobs=%d kills_with_backlog=%d feedback_acked=%d jobs_done=%d insights_per_record=%v lost=0 duplicates=0",
			trials, trials, withClaims, withBacklog, acked, done, counts)
	})
}
