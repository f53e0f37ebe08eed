package storetest

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/feedbridge/feedbridge/core"
)

// queued submits n feedbacks with descriptions (one insight job each) and returns their records.
func (f *fixture) queued(ws core.ID, n int) []core.Record {
	f.t.Helper()
	out := make([]core.Record, n)
	for i := range out {
		out[i] = f.feedback(ws, title(i), fmt.Sprintf("Feedback text %d.", i))
	}
	return out
}

func (f *fixture) claim(worker string, n int, lease time.Duration) []core.InsightJob {
	f.t.Helper()
	jobs, err := f.st.ClaimInsightJobs(f.ctx, worker, n, lease)
	if err != nil {
		f.t.Fatalf("claim: %v", err)
	}
	return jobs
}

func sampleInsights() []core.Insight {
	return []core.Insight{
		{Kind: "problem", Summary: "Export is slow", Quote: "The export is slow.", Sentiment: "negative", SentimentScore: -0.5,
			Themes: []string{"export", "performance"}, Tags: []string{"Perf"}, Extractor: "builtin"},
		{Kind: "praise", Summary: "Likes the UI", Quote: "Love the UI!", Sentiment: "positive", SentimentScore: 0.75,
			Themes: []string{"ui"}, Tags: []string{}, Extractor: "builtin"},
	}
}

var insightTests = map[string]func(t *testing.T, f *fixture){
	"ClaimLeaseComplete": func(t *testing.T, f *fixture) {
		a, b := f.workspace("A", 0).ID, f.workspace("B", 0).ID
		rec := f.queued(a, 1)[0]
		jobs := f.claim("w1", 5, time.Minute)
		if len(jobs) != 1 {
			t.Fatalf("want 1 job, got %+v", jobs)
		}
		j := jobs[0]
		equal(t, "claimed job", [5]string{string(j.Workspace), string(j.RecordID), j.State, j.LeasedBy, fmt.Sprint(j.Attempts)},
			[5]string{string(a), string(rec.ID), core.JobRunning, "w1", "1"})
		if j.LeaseUntil.Before(time.Now().Add(50*time.Second)) || j.MaxAttempts < 1 {
			t.Fatalf("lease or max attempts wrong: %+v", j)
		}
		equal(t, "leased jobs are not claimed again", len(f.claim("w2", 5, time.Minute)), 0)

		ins, err := f.st.Insights(f.ctx, a, rec.ID)
		noErr(t, "insights while running", err)
		if ins == nil || len(ins) != 0 {
			t.Fatalf("want [] while queued, got %#v", ins)
		}
		err = f.st.CompleteInsightJob(f.ctx, j, "w2", sampleInsights())
		wantErr(t, "complete by another worker", err, core.ErrConflict)
		other := j
		other.Workspace = b
		wantErr(t, "complete through another workspace", f.st.CompleteInsightJob(f.ctx, other, "w1", sampleInsights()), core.ErrConflict)
		wantErr(t, "fail through another workspace", f.st.FailInsightJob(f.ctx, other, "w1", "x", time.Now(), true), core.ErrConflict)
		wantErr(t, "release through another workspace", f.st.ReleaseInsightJob(f.ctx, other, "w1"), core.ErrConflict)
		ins, err = f.st.Insights(f.ctx, a, rec.ID)
		noErr(t, "insights", err)
		equal(t, "nothing stored by a non-holder", len(ins), 0)

		noErr(t, "complete", f.st.CompleteInsightJob(f.ctx, j, "w1", sampleInsights()))
		ins, err = f.st.Insights(f.ctx, a, rec.ID)
		noErr(t, "insights", err)
		want := sampleInsights()
		if len(ins) != len(want) {
			t.Fatalf("want %d insights, got %+v", len(want), ins)
		}
		for i := range want {
			want[i].ID, want[i].Workspace, want[i].RecordID, want[i].CreatedAt = ins[i].ID, a, rec.ID, ins[i].CreatedAt
			if ins[i].ID == "" || ins[i].CreatedAt.IsZero() {
				t.Fatalf("insight without id or time: %+v", ins[i])
			}
		}
		equal(t, "stored insights", ins, want)
		ins, err = f.st.Insights(f.ctx, b, rec.ID)
		noErr(t, "insights of b", err)
		equal(t, "other workspace sees none", len(ins), 0)
		depth, err := f.st.InsightQueueDepth(f.ctx)
		noErr(t, "depth", err)
		equal(t, "queue empty", depth, 0)
		wantErr(t, "complete twice", f.st.CompleteInsightJob(f.ctx, j, "w1", nil), core.ErrConflict)
	},
	"ConcurrentClaimersNeverShare": func(t *testing.T, f *fixture) {
		ws := f.workspace("A", 0).ID
		recs := f.queued(ws, 40)
		var (
			mu  sync.Mutex
			got = map[core.ID]string{}
			wg  sync.WaitGroup
		)
		for w := range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				worker := fmt.Sprintf("w%d", w)
				for {
					jobs, err := f.st.ClaimInsightJobs(f.ctx, worker, 3, time.Minute)
					if err != nil {
						t.Errorf("claim: %v", err)
						return
					}
					if len(jobs) == 0 {
						return
					}
					mu.Lock()
					for _, j := range jobs {
						if prev, dup := got[j.ID]; dup {
							t.Errorf("job %s claimed by %s and %s", j.ID, prev, worker)
						}
						got[j.ID] = worker
					}
					mu.Unlock()
				}
			}()
		}
		wg.Wait()
		equal(t, "every job claimed once", len(got), len(recs))
	},
	"ExpiredLeaseIsReclaimed": func(t *testing.T, f *fixture) {
		ws := f.workspace("A", 0).ID
		f.queued(ws, 1)
		first := f.claim("dead", 1, 50*time.Millisecond)[0]
		time.Sleep(120 * time.Millisecond)
		again := f.claim("alive", 1, time.Minute)
		if len(again) != 1 || again[0].ID != first.ID || again[0].LeasedBy != "alive" || again[0].Attempts != 2 {
			t.Fatalf("want the expired job reclaimed as attempt 2, got %+v", again)
		}
		wantErr(t, "late completion by the old holder", f.st.CompleteInsightJob(f.ctx, first, "dead", sampleInsights()), core.ErrConflict)
		wantErr(t, "late failure by the old holder", f.st.FailInsightJob(f.ctx, first, "dead", "x", time.Now(), true), core.ErrConflict)
		noErr(t, "complete by the new holder", f.st.CompleteInsightJob(f.ctx, again[0], "alive", sampleInsights()[:1]))
	},
	"HeartbeatKeepsClaims": func(t *testing.T, f *fixture) {
		ws := f.workspace("A", 0).ID
		f.queued(ws, 3)
		held := f.claim("alive", 2, 150*time.Millisecond)
		f.claim("dead", 1, 150*time.Millisecond)
		for range 3 {
			time.Sleep(80 * time.Millisecond)
			n, err := f.st.ExtendInsightJobs(f.ctx, "alive", 150*time.Millisecond)
			noErr(t, "extend", err)
			equal(t, "jobs held by the live worker", n, 2)
		}
		// 240 ms after the claims: the dead worker's lease ran out, the live one's were renewed.
		again := f.claim("other", 5, time.Minute)
		if len(again) != 1 || again[0].Attempts != 2 {
			t.Fatalf("want only the dead worker's job reclaimed, got %+v", again)
		}
		for _, j := range held {
			noErr(t, "complete a heartbeated job", f.st.CompleteInsightJob(f.ctx, j, "alive", sampleInsights()[:1]))
		}
		n, err := f.st.ExtendInsightJobs(f.ctx, "alive", time.Minute)
		noErr(t, "extend with nothing held", err)
		equal(t, "jobs held after completing them", n, 0)
	},
	"FailRetryAndFinal": func(t *testing.T, f *fixture) {
		a, b := f.workspace("A", 0).ID, f.workspace("B", 0).ID
		f.queued(a, 1)
		f.queued(b, 1)
		jobs := f.claim("w", 2, time.Minute)
		if len(jobs) != 2 {
			t.Fatalf("want 2 jobs, got %+v", jobs)
		}
		ja, jb := jobs[0], jobs[1]
		if ja.Workspace != a {
			ja, jb = jb, ja
		}
		noErr(t, "fail, retry later", f.st.FailInsightJob(f.ctx, ja, "w", "timeout", time.Now().Add(time.Hour), false))
		wantErr(t, "fail again without holding it", f.st.FailInsightJob(f.ctx, ja, "w", "timeout", time.Now(), false), core.ErrConflict)
		equal(t, "not due before its retry time", len(f.claim("w", 5, time.Minute)), 0)
		noErr(t, "fail jb finally", f.st.FailInsightJob(f.ctx, jb, "w", "bad gateway", time.Now(), true))

		failed, err := f.st.FailedInsightJobs(f.ctx, b)
		noErr(t, "failed of b", err)
		if len(failed) != 1 || failed[0].ID != jb.ID || failed[0].State != core.JobFailed || failed[0].LastError != "bad gateway" {
			t.Fatalf("want b's failed job with its error, got %+v", failed)
		}
		failed, err = f.st.FailedInsightJobs(f.ctx, a)
		noErr(t, "failed of a", err)
		equal(t, "a has no failed job (one is waiting to retry)", len(failed), 0)
		all, err := f.st.FailedInsightJobs(f.ctx, "")
		noErr(t, "all failed", err)
		equal(t, "all workspaces", len(all), 1)
		depth, err := f.st.InsightQueueDepth(f.ctx)
		noErr(t, "depth", err)
		equal(t, "queue depth counts the waiting job, not the failed one", depth, 1)

		_, err = f.st.RetryInsightJobs(f.ctx, a, jb.ID)
		wantErr(t, "retry through another workspace", err, core.ErrNotFound)
		n, err := f.st.RetryInsightJobs(f.ctx, b, jb.ID)
		noErr(t, "retry", err)
		equal(t, "retried", n, 1)
		again := f.claim("w", 5, time.Minute)
		if len(again) != 1 || again[0].ID != jb.ID || again[0].Attempts != 1 {
			t.Fatalf("want the retried job with fresh attempts, got %+v", again)
		}
		noErr(t, "fail again", f.st.FailInsightJob(f.ctx, again[0], "w", "still down", time.Now(), true))
		n, err = f.st.RetryInsightJobs(f.ctx, "", "")
		noErr(t, "retry all", err)
		equal(t, "retried all", n, 1)
		n, err = f.st.RetryInsightJobs(f.ctx, "", "")
		noErr(t, "retry all again", err)
		equal(t, "nothing left to retry", n, 0)
	},
	"Release": func(t *testing.T, f *fixture) {
		ws := f.workspace("A", 0).ID
		f.queued(ws, 1)
		j := f.claim("w", 1, time.Minute)[0]
		wantErr(t, "release by another worker", f.st.ReleaseInsightJob(f.ctx, j, "other"), core.ErrConflict)
		noErr(t, "release", f.st.ReleaseInsightJob(f.ctx, j, "w"))
		again := f.claim("w2", 1, time.Minute)
		if len(again) != 1 || again[0].ID != j.ID || again[0].Attempts != 1 {
			t.Fatalf("a released job is due at once and keeps its attempts: %+v", again)
		}
	},
	"InsightRows": func(t *testing.T, f *fixture) {
		a, b := f.workspace("A", 0).ID, f.workspace("B", 0).ID
		day := time.Date(2025, 5, 1, 0, 0, 0, 0, time.UTC)
		early := f.submit(a, core.Submission{Type: core.RecordFeedback, Title: "early", Description: "x", CustomerEmail: "x@acme.com", CreatedAt: day}).Record
		late := f.submit(a, core.Submission{Type: core.RecordFeedback, Title: "late", Description: "y", CustomerEmail: "y@gmail.com", CreatedAt: day.Add(48 * time.Hour)}).Record
		f.submit(b, core.Submission{Type: core.RecordFeedback, Title: "theirs", Description: "z", CreatedAt: day})
		for _, j := range f.claim("w", 10, time.Minute) {
			noErr(t, "complete", f.st.CompleteInsightJob(f.ctx, j, "w", sampleInsights()[:1]))
		}
		cases := []struct {
			name     string
			from, to time.Time
			want     []string // record id/customer
		}{
			{"all", time.Time{}, time.Time{}, []string{string(early.ID) + "/Acme", string(late.ID) + "/"}},
			{"inclusive window", day, day, []string{string(early.ID) + "/Acme"}},
			{"later", day.Add(time.Millisecond), time.Time{}, []string{string(late.ID) + "/"}},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				rows, err := f.st.InsightRows(f.ctx, a, c.from, c.to)
				noErr(t, "rows", err)
				got := []string{}
				for _, r := range rows {
					if r.Workspace != a || r.Summary != "Export is slow" {
						t.Fatalf("unexpected row %+v", r)
					}
					got = append(got, string(r.RecordID)+"/"+r.Customer)
				}
				sameStrings(t, "rows", got, c.want)
			})
		}
	},
}

func sameStrings(t *testing.T, what string, got, want []string) {
	t.Helper()
	g := make([]core.ID, len(got))
	for i, s := range got {
		g[i] = core.ID(s)
	}
	w := make([]core.ID, len(want))
	for i, s := range want {
		w[i] = core.ID(s)
	}
	sameSet(t, what, g, w)
}
