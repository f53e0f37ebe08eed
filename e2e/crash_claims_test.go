package e2e

import (
	"fmt"
	"net/http/httptest"
	"sync"
	"testing"
	"time"
)

// kill -9 while 500 insight jobs are claimed: the stand-in LLM holds every call, so the daemon's 500
// workers each hold a claim when it dies. Nothing expires the claims by hand: the restarted daemon must
// find them free once their last heartbeat's lease has run out, and finish all 500 within 30 s of its
// start. Each record ends with exactly one set of insights.
func TestClaimsAfterCrash(t *testing.T) {
	t.Parallel()
	eachStore(t, func(t *testing.T, storeURL string) {
		const jobs = 500
		llm := newFaultServer(llmAnswer(t), nil)
		llm.set("hold")
		srv := httptest.NewServer(llm)
		defer srv.Close()
		e := newEnv(t, storeURL, "")
		_, key := e.workspace("Claims")
		e.configure(storeURL, fmt.Sprintf("insights: {provider: openai, workers: %d, openai: {base_url: %q, api_key: %q, model: e2e-model, timeout: 5m}}\n",
			jobs, srv.URL+"/v1", llmKey))
		db := e.inspect(storeURL)
		d := e.start()
		var wg sync.WaitGroup
		for w := range 8 {
			wg.Go(func() {
				for i := w; i < jobs; i += 8 {
					if code, _ := post(d, key, "/api/records/feedback", "", insightFeedback(0, i)); code != 201 {
						t.Errorf("create %d: %d", i, code)
					}
				}
			})
		}
		wg.Wait()
		eventually(t, 30*time.Second, "every job claimed", func() bool {
			_, running, _ := checkJobs(t, db)
			return running == jobs
		})
		d.kill()
		llm.set("ok")
		restarted := time.Now()
		d = e.start()
		eventually(t, 30*time.Second, "every job done after the restart", func() bool {
			_, _, done := checkJobs(t, db)
			return done == jobs
		})
		took := time.Since(restarted)
		if took > 30*time.Second {
			t.Errorf("the claimed jobs took %.1fs after the restart, want under 30 s", took.Seconds())
		}
		if n := db.int(t, "SELECT count(DISTINCT record_id) FROM insights"); n != jobs {
			t.Errorf("%d records with insights, want %d", n, jobs)
		}
		if n := db.int(t, "SELECT count(*) FROM insights"); n != jobs {
			t.Errorf("%d insights for %d records of one insight each: a job ran twice", n, jobs)
		}
		figures(t, "claimed_at_kill=%d all_done_after_restart=%.1fs", jobs, took.Seconds())
	})
}
