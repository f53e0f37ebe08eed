package sqlite

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/feedbridge/feedbridge/core"
	"github.com/feedbridge/feedbridge/store/internal/themeshare"
)

// errNotHeld is returned when a worker finishes a job it no longer holds; its result is dropped.
var errNotHeld = fmt.Errorf("insight job is not held by this worker: %w", core.ErrConflict)

// CompleteInsightJob replaces the record's insights with ins and marks the job done, in one transaction and
// only while worker holds the job.
func (s *Store) CompleteInsightJob(ctx context.Context, job core.InsightJob, worker string, ins []core.Insight) error {
	return s.write(ctx, "complete insight job", func(tx *wtx) error {
		notHeld, err := s.completeJobs(tx, worker, []core.JobResult{{Job: job, Insights: ins}})
		if err == nil && len(notHeld) > 0 {
			err = errNotHeld
		}
		return err
	})
}

// CompleteInsightJobs completes every job of results that worker still holds in one write, so jobs that
// finish together share a transaction and its commit; the others are returned, untouched.
func (s *Store) CompleteInsightJobs(ctx context.Context, worker string, results []core.JobResult) ([]core.ID, error) {
	notHeld := []core.ID{}
	if len(results) == 0 {
		return notHeld, nil
	}
	err := s.write(ctx, "complete insight jobs", func(tx *wtx) (err error) {
		notHeld, err = s.completeJobs(tx, worker, results)
		return err
	})
	if err != nil {
		return nil, err
	}
	return notHeld, nil
}

// deleteHeldJobs (?1 a JSON list of [job id, workspace], ?2 the worker) deletes the listed insight jobs
// the worker holds and returns their ids. CROSS JOIN keeps the list as the outer loop, each job found by
// its key: the planner would otherwise walk every running job of the queue (the pool's reserve) against
// the list.
const deleteHeldJobs = `DELETE FROM queue_items WHERE seq IN (SELECT q.seq FROM json_each(?1) k
	CROSS JOIN queue_items q ON q.id = k.value ->> 0 AND q.queue = '` + core.InsightQueue + `'
	WHERE q.workspace_id = k.value ->> 1 AND q.state = 'running' AND q.leased_by = ?2) RETURNING id`

// completeJobs marks the jobs of results that worker holds done and replaces their records' insights with
// the results' (a record named twice gets the last result's), and adds them to the theme roll-up. The
// statements are the same few however many jobs there are: one deletion of the jobs, one of the records'
// earlier insights, one insertion of the new ones, then the roll-up (rollupShares). It returns the jobs
// worker did not hold, whose results are dropped.
func (s *Store) completeJobs(tx *wtx, worker string, results []core.JobResult) ([]core.ID, error) {
	keys := make([][2]core.ID, len(results))
	for i, r := range results {
		keys[i] = [2]core.ID{r.Job.ID, r.Job.Workspace}
	}
	list, err := json.Marshal(keys)
	if err != nil {
		return nil, err
	}
	rows, err := tx.QueryContext(tx.ctx, deleteHeldJobs, string(list), worker)
	done, err := collect(rows, func(sc scanner) (core.ID, error) {
		var id core.ID
		return id, sc.Scan(&id)
	})
	if err != nil {
		return nil, err
	}
	held := make(map[core.ID]bool, len(done))
	for _, id := range done {
		held[id] = true
	}
	notHeld := []core.ID{}
	var mine []core.JobResult
	for _, r := range results {
		if !held[r.Job.ID] {
			notHeld = append(notHeld, r.Job.ID)
			continue
		}
		mine = append(mine, r)
	}
	if len(mine) == 0 {
		return notHeld, nil
	}
	latest := themeshare.Latest(mine)
	if err := replaceInsights(tx, latest, s.nowMS()); err != nil {
		return nil, err
	}
	return notHeld, rollupShares(tx, latest)
}

// replaceInsights deletes the earlier insights of the results' records (the delete trigger takes their
// shares out of the roll-up) and inserts the results' insights in extraction order, many rows a statement.
func replaceInsights(tx *wtx, results []core.JobResult, now int64) error {
	recs := make([][2]core.ID, len(results))
	var rows [][]any
	for i, r := range results {
		recs[i] = [2]core.ID{r.Job.Workspace, r.Job.RecordID}
		for _, in := range r.Insights {
			row, err := insightRow(r.Job, in, now)
			if err != nil {
				return err
			}
			rows = append(rows, row)
		}
	}
	list, err := json.Marshal(recs)
	if err != nil {
		return err
	}
	if _, err := tx.ExecContext(tx.ctx, `DELETE FROM insights WHERE rowid IN (SELECT i.rowid FROM json_each(?) k
		JOIN insights i ON i.workspace_id = k.value ->> 0 AND i.record_id = k.value ->> 1)`, string(list)); err != nil {
		return err
	}
	return insightInsert.exec(tx, rows)
}

// insightInsert writes insights, each row as insightRow gives it.
var insightInsert = rowInsert{head: `INSERT INTO insights(id, workspace_id, record_id, kind, summary, quote, sentiment,
	sentiment_score, themes, tags, extractor, created_at) VALUES `, cols: 12}

// insightRow is the row of one insight of the job's record as replaceInsights inserts it; themes and tags
// are stored as JSON arrays.
func insightRow(job core.InsightJob, in core.Insight, now int64) ([]any, error) {
	if in.ID == "" {
		in.ID = core.NewID()
	}
	created := now
	if !in.CreatedAt.IsZero() {
		created = ms(in.CreatedAt)
	}
	themes, err := json.Marshal(nonNil(in.Themes))
	if err != nil {
		return nil, err
	}
	tags, err := json.Marshal(nonNil(in.Tags))
	if err != nil {
		return nil, err
	}
	return []any{in.ID, job.Workspace, job.RecordID, in.Kind, in.Summary, in.Quote, in.Sentiment, in.SentimentScore,
		string(themes), string(tags), in.Extractor, created}, nil
}
