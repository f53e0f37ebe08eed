package postgres

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/feedbridge/feedbridge/core"
)

// CompleteInsightJob stores the job's insights (replacing any of an earlier run) and marks it done.
func (s *Store) CompleteInsightJob(ctx context.Context, job core.InsightJob, worker string, ins []core.Insight) error {
	notHeld, err := s.completeJobs(ctx, "complete insight job", worker, []core.JobResult{{Job: job, Insights: ins}})
	if err == nil && len(notHeld) > 0 {
		err = fail("complete insight job", core.ErrConflict)
	}
	return err
}

// CompleteInsightJobs completes every job of results that worker still holds in one transaction of three
// round trips however many jobs there are; the others are returned, untouched.
func (s *Store) CompleteInsightJobs(ctx context.Context, worker string, results []core.JobResult) ([]core.ID, error) {
	if len(results) == 0 {
		return []core.ID{}, nil
	}
	return s.completeJobs(ctx, "complete insight jobs", worker, results)
}

// completeJobs removes the jobs of results that worker holds from the queue, in one statement, and replaces their
// records' insights in one batch.
func (s *Store) completeJobs(ctx context.Context, op, worker string, results []core.JobResult) ([]core.ID, error) {
	ids, wss := make([]string, len(results)), make([]string, len(results))
	for i, r := range results {
		ids[i], wss[i] = string(r.Job.ID), string(r.Job.Workspace)
	}
	var notHeld []core.ID
	err := s.inTx(ctx, op, func(tx pgx.Tx) error {
		rows, err := tx.Query(ctx, `DELETE FROM queue_items q USING unnest($1::text[], $2::text[]) AS d (id, ws)
			WHERE q.queue = '`+core.InsightQueue+`' AND q.id = d.id AND q.workspace_id = d.ws AND q.state = 'running'
				AND q.leased_by = $3 RETURNING q.id`, ids, wss, worker)
		if err != nil {
			return err
		}
		done, err := pgx.CollectRows(rows, pgx.RowTo[core.ID])
		if err != nil {
			return err
		}
		isDone := make(map[core.ID]bool, len(done))
		for _, id := range done {
			isDone[id] = true
		}
		notHeld = []core.ID{}
		b := &pgx.Batch{}
		var written []core.InsightJob
		for _, r := range results {
			if !isDone[r.Job.ID] {
				notHeld = append(notHeld, r.Job.ID)
				continue
			}
			queueInsights(b, r.Job, r.Insights)
			written = append(written, r.Job)
		}
		queueRollup(b, written)
		if b.Len() == 0 {
			return nil
		}
		return tx.SendBatch(ctx, b).Close()
	})
	if err != nil {
		return nil, err
	}
	return notHeld, nil
}

// queueInsights adds to b the statements that replace the job's record's insights with ins.
func queueInsights(b *pgx.Batch, job core.InsightJob, ins []core.Insight) {
	b.Queue(`DELETE FROM insights WHERE workspace_id = $1 AND record_id = $2`, job.Workspace, job.RecordID)
	for _, in := range ins {
		if in.ID == "" {
			in.ID = core.NewID()
		}
		b.Queue(`INSERT INTO insights (id, workspace_id, record_id, kind, summary, quote, sentiment, sentiment_score,
				themes, tags, extractor, created_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, coalesce($12, `+txNow+`))`,
			in.ID, job.Workspace, job.RecordID, in.Kind, in.Summary, in.Quote, in.Sentiment, in.SentimentScore,
			nonNil(in.Themes), nonNil(in.Tags), in.Extractor, optTime(in.CreatedAt))
	}
}

func nonNil(ss []string) []string {
	if ss == nil {
		return []string{}
	}
	return ss
}

func (s *Store) jobUpdate(ctx context.Context, op, sql string, args ...any) error {
	tag, err := s.pool.Exec(ctx, sql, args...)
	if err != nil {
		return fail(op, err)
	}
	if tag.RowsAffected() == 0 {
		return fail(op, core.ErrConflict)
	}
	return nil
}

const insightCols = `i.id, i.workspace_id, i.record_id, i.kind, i.summary, i.quote, i.sentiment, i.sentiment_score,
	i.themes, i.tags, i.extractor, i.created_at`

func scanInsight(row pgx.Row, extra ...any) (core.Insight, error) {
	var in core.Insight
	err := row.Scan(append([]any{&in.ID, &in.Workspace, &in.RecordID, &in.Kind, &in.Summary, &in.Quote, &in.Sentiment,
		&in.SentimentScore, &in.Themes, &in.Tags, &in.Extractor, &in.CreatedAt}, extra...)...)
	in.CreatedAt = ms(in.CreatedAt)
	return in, err
}

// Insights returns a record's insights in the order they were stored.
func (s *Store) Insights(ctx context.Context, ws core.ID, recordID core.ID) ([]core.Insight, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+insightCols+` FROM insights i
		WHERE i.workspace_id = $1 AND i.record_id = $2 ORDER BY i.created_at, i.id`, ws, recordID)
	if err != nil {
		return nil, fail("insights", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (core.Insight, error) { return scanInsight(r) })
	return out, fail("insights", err)
}

// InsightRows returns the workspace's insights of records created within [from, to] (zero: open), each
// with the record's company name, for the signals roll-up.
func (s *Store) InsightRows(ctx context.Context, ws core.ID, from, to time.Time) ([]core.InsightRow, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+insightCols+`, coalesce(c.name, ''), r.created_at FROM insights i
		JOIN records r ON r.workspace_id = i.workspace_id AND r.id = i.record_id
		LEFT JOIN companies c ON c.workspace_id = r.workspace_id AND c.id = r.company_id
		WHERE i.workspace_id = $1 AND ($2::timestamptz IS NULL OR r.created_at >= $2) AND ($3::timestamptz IS NULL OR r.created_at <= $3)
		ORDER BY r.created_at, i.record_id, i.created_at, i.id`, ws, bound(from), bound(to))
	if err != nil {
		return nil, fail("insight rows", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (core.InsightRow, error) {
		var row core.InsightRow
		in, err := scanInsight(r, &row.Customer, &row.RecordCreatedAt)
		row.Insight = in
		row.RecordCreatedAt = row.RecordCreatedAt.UTC()
		return row, err
	})
	return out, fail("insight rows", err)
}
