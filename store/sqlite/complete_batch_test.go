package sqlite

import (
	"fmt"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/feedbridge/feedbridge/core"
)

// completeBatchJobs queues n feedbacks in ws (every third without a company, the others at one of two) and
// claims their jobs for worker w.
func completeBatchJobs(t *testing.T, st *Store, ws core.ID, n int) []core.InsightJob {
	t.Helper()
	svc := core.NewService(st, core.Options{})
	subs := make([]core.Submission, n)
	for i := range subs {
		subs[i] = core.Submission{Type: core.RecordFeedback, Title: fmt.Sprintf("feedback %d", i), Description: "text"}
		if i%3 != 0 {
			subs[i].CustomerEmail = fmt.Sprintf("c%d@%s.example", i, []string{"acme", "globex"}[i%2])
		}
	}
	if _, err := svc.SubmitBatch(t.Context(), ws, subs); err != nil {
		t.Fatal(err)
	}
	jobs, err := st.ClaimInsightJobs(t.Context(), "w", n, time.Minute)
	if err != nil || len(jobs) != n {
		t.Fatalf("claimed %d of %d jobs: %v", len(jobs), n, err)
	}
	return jobs
}

// batchInsights are the insights of the i-th job of a batch: repeated and blank themes, every kind.
func batchInsights(i int) []core.Insight {
	themes := [][]string{{"dark mode", "csv export"}, {"csv export", "csv export", ""}, {"single sign-on"}, {},
		{fmt.Sprintf("theme %d", i%7), "dark mode"}}
	out := make([]core.Insight, 1+i%3)
	for k := range out {
		out[k] = core.Insight{Kind: []string{"request", "problem", "praise", "question", "other"}[(i+k)%5],
			Summary: "s", Quote: "q", Sentiment: "neutral", SentimentScore: float64((i+k)%5-2) / 4,
			Themes: themes[(i+k)%len(themes)], Tags: []string{}, Extractor: "builtin"}
	}
	return out
}

// TestCompleteInsightJobsRollup: the roll-up a batch writes (with a record completed twice, re-extracted
// records and a job no longer held) equals the one the migration computes from every insight stored.
func TestCompleteInsightJobsRollup(t *testing.T) {
	st := openT(t, filepath.Join(t.TempDir(), "r.db"))
	ws, err := core.NewService(st, core.Options{}).CreateWorkspace(t.Context(), "A", core.PlanBusiness, 0)
	if err != nil {
		t.Fatal(err)
	}
	jobs := completeBatchJobs(t, st, ws.ID, 30)
	// Second jobs of two records, as an edit queues them, for a later batch.
	if _, err := st.w.ExecContext(t.Context(), `INSERT INTO queue_items (id, queue, kind, workspace_id, body, state,
		attempts, retry_for_ms, run_at, lease_until, leased_by, give_up_at, created_at, updated_at)
		SELECT id || 'x', queue, kind, workspace_id, body, state, attempts, retry_for_ms, run_at, lease_until, leased_by,
			give_up_at, created_at, updated_at FROM queue_items WHERE id IN (?, ?)`, jobs[1].ID, jobs[2].ID); err != nil {
		t.Fatal(err)
	}
	var results []core.JobResult
	for i, j := range jobs[:20] {
		results = append(results, core.JobResult{Job: j, Insights: batchInsights(i)})
	}
	// The same record twice in one batch: the last result's insights are the record's.
	results = append(results, core.JobResult{Job: jobs[0], Insights: batchInsights(4)})
	if _, err := st.CompleteInsightJobs(t.Context(), "w", results); err != nil {
		t.Fatal(err)
	}
	// A second run over records that have insights already, and one job another worker holds.
	var again []core.JobResult
	for i, j := range jobs[20:] {
		again = append(again, core.JobResult{Job: j, Insights: batchInsights(i + 1)})
	}
	for k, i := range []int{1, 2} {
		j := jobs[i]
		j.ID += "x"
		again = append(again, core.JobResult{Job: j, Insights: batchInsights(i + 2)})
		if k == 1 {
			again[len(again)-1].Job.ID += "gone"
		}
	}
	notHeld, err := st.CompleteInsightJobs(t.Context(), "w", again)
	if err != nil || !reflect.DeepEqual(notHeld, []core.ID{jobs[2].ID + "xgone"}) {
		t.Fatalf("second batch: not held %v, %v", notHeld, err)
	}
	got := readRollup(t, st)
	for _, q := range []string{`DELETE FROM record_themes`, `DELETE FROM theme_days`, `DELETE FROM theme_day_companies`,
		rebuildRecordThemes, rebuildThemeDays, rebuildThemeDayCompanies} {
		if _, err := st.w.ExecContext(t.Context(), q); err != nil {
			t.Fatal(err)
		}
	}
	if want := readRollup(t, st); !reflect.DeepEqual(got, want) {
		t.Errorf("roll-up after the batches:\n got %v\nwant %v", got, want)
	}
	if len(got[0]) == 0 || len(got[2]) == 0 {
		t.Errorf("roll-up is empty: %v", got)
	}
}

// The migration's roll-up of every insight stored.
const (
	rebuildRecordThemes = `INSERT INTO record_themes (workspace_id, record_id, theme, day, created_at, company_id, n, score,
		req, prob, praise, quest)
	SELECT i.workspace_id, i.record_id, t.theme, r.created_at / 86400000, r.created_at, coalesce(r.company_id, ''),
		count(*), total(i.sentiment_score), sum(i.kind = 'request'), sum(i.kind = 'problem'), sum(i.kind = 'praise'),
		sum(i.kind = 'question')
	FROM (SELECT DISTINCT i.id AS iid, je.value AS theme FROM insights i, json_each(i.themes) je
		WHERE je.type = 'text' AND je.value <> '') t
	JOIN insights i ON i.id = t.iid
	JOIN records r ON r.id = i.record_id AND r.workspace_id = i.workspace_id
	GROUP BY i.workspace_id, i.record_id, t.theme`
	rebuildThemeDays = `INSERT INTO theme_days (workspace_id, day, theme, n, recs, score, req, prob, praise, quest)
	SELECT workspace_id, day, theme, sum(n), count(*), total(score), sum(req), sum(prob), sum(praise), sum(quest)
	FROM record_themes GROUP BY workspace_id, day, theme`
	rebuildThemeDayCompanies = `INSERT INTO theme_day_companies (workspace_id, theme, day, company_id, n)
	SELECT workspace_id, theme, day, company_id, sum(n) FROM record_themes WHERE company_id <> ''
	GROUP BY workspace_id, theme, day, company_id`
)

// readRollup reads the three roll-up tables as text rows, in key order; scores rounded.
func readRollup(t *testing.T, st *Store) [3][]string {
	var out [3][]string
	for i, q := range []string{
		`SELECT workspace_id, record_id, theme, day, created_at, company_id, n, round(score, 9), req, prob, praise, quest
			FROM record_themes ORDER BY 1, 2, 3`,
		`SELECT workspace_id, day, theme, n, recs, round(score, 9), req, prob, praise, quest FROM theme_days ORDER BY 1, 2, 3`,
		`SELECT workspace_id, theme, day, company_id, n FROM theme_day_companies ORDER BY 1, 2, 3, 4`,
	} {
		rows, err := st.w.QueryContext(t.Context(), `SELECT json_array(*) FROM (`+q+`)`)
		if err != nil {
			t.Fatal(err)
		}
		list, err := collect(rows, func(sc scanner) (string, error) {
			var s string
			return s, sc.Scan(&s)
		})
		if err != nil {
			t.Fatal(err)
		}
		out[i] = list
	}
	return out
}
