package postgres

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/feedbridge/feedbridge/core"
)

const jobCols = `id, workspace_id, record_id, state, attempts, max_attempts, last_error, run_at, lease_until, leased_by,
	created_at, updated_at`

func scanJob(row pgx.Row) (core.InsightJob, error) {
	var (
		j     core.InsightJob
		lease *time.Time
	)
	err := row.Scan(&j.ID, &j.Workspace, &j.RecordID, &j.State, &j.Attempts, &j.MaxAttempts, &j.LastError,
		&j.RunAt, &lease, &j.LeasedBy, &j.CreatedAt, &j.UpdatedAt)
	j.RunAt, j.LeaseUntil, j.CreatedAt, j.UpdatedAt = ms(j.RunAt), fromOpt(lease), ms(j.CreatedAt), ms(j.UpdatedAt)
	return j, err
}

func collectJobs(rows pgx.Rows, err error) ([]core.InsightJob, error) {
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (core.InsightJob, error) { return scanJob(r) })
}

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

// completeJobs marks the jobs of results that worker holds done, in one statement, and replaces their
// records' insights in one batch.
func (s *Store) completeJobs(ctx context.Context, op, worker string, results []core.JobResult) ([]core.ID, error) {
	ids, wss := make([]string, len(results)), make([]string, len(results))
	for i, r := range results {
		ids[i], wss[i] = string(r.Job.ID), string(r.Job.Workspace)
	}
	var notHeld []core.ID
	err := s.inTx(ctx, op, func(tx pgx.Tx) error {
		rows, err := tx.Query(ctx, `UPDATE insight_jobs j SET state = 'done', lease_until = NULL, last_error = '',
			updated_at = `+txNow+` FROM unnest($1::text[], $2::text[]) AS d (id, ws)
			WHERE j.id = d.id AND j.workspace_id = d.ws AND j.state = 'running' AND j.leased_by = $3 RETURNING j.id`,
			ids, wss, worker)
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
		for _, r := range results {
			if !isDone[r.Job.ID] {
				notHeld = append(notHeld, r.Job.ID)
				continue
			}
			queueInsights(b, r.Job, r.Insights)
		}
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

// FailInsightJob records an attempt's error: the job is queued again at retryAt, or kept as failed.
func (s *Store) FailInsightJob(ctx context.Context, job core.InsightJob, worker string, msg string, retryAt time.Time, final bool) error {
	state := core.JobQueued
	if final {
		state = core.JobFailed
	}
	return s.jobUpdate(ctx, "fail insight job", `UPDATE insight_jobs SET state = $4, last_error = $5,
		run_at = $6, lease_until = NULL, leased_by = '', updated_at = `+dbNow+`
		WHERE `+held, job.ID, job.Workspace, worker, state, msg, ms(retryAt))
}

// ReleaseInsightJob gives a claimed job back as it was before the claim (shutdown): queued, the attempt
// not counted.
func (s *Store) ReleaseInsightJob(ctx context.Context, job core.InsightJob, worker string) error {
	return s.jobUpdate(ctx, "release insight job", `UPDATE insight_jobs SET `+released+` WHERE `+held, job.ID, job.Workspace, worker)
}

// ReleaseInsightJobs gives back every job worker holds, except those in keep, as before its claim.
func (s *Store) ReleaseInsightJobs(ctx context.Context, worker string, keep []core.ID) (int, error) {
	ids := make([]string, len(keep))
	for i, id := range keep {
		ids[i] = string(id)
	}
	tag, err := s.pool.Exec(ctx, `UPDATE insight_jobs SET `+released+` WHERE state = 'running' AND leased_by = $1
		AND NOT (id = ANY ($2::text[]))`, worker, ids)
	if err != nil {
		return 0, fail("release insight jobs", err)
	}
	return int(tag.RowsAffected()), nil
}

// released is the change that gives a claimed job back: queued and due as before, the claim's attempt not
// counted.
const released = `state = 'queued', attempts = greatest(attempts - 1, 0), lease_until = NULL, leased_by = '',
	updated_at = ` + dbNow

// ExtendInsightJobs pushes back the lease of every job worker holds, in one statement: the heartbeat that
// keeps a slow extraction's claim alive, and that stops when the worker's process dies.
func (s *Store) ExtendInsightJobs(ctx context.Context, worker string, lease time.Duration) (int, error) {
	tag, err := s.pool.Exec(ctx, `UPDATE insight_jobs SET lease_until = `+dbNow+` + $2 * interval '1 millisecond'
		WHERE state = 'running' AND leased_by = $1`, worker, lease.Milliseconds())
	if err != nil {
		return 0, fail("extend insight jobs", err)
	}
	return int(tag.RowsAffected()), nil
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

// held is the condition that the job ($1, of workspace $2) is still the worker's ($3): running and leased to
// it. A worker whose lease ran out keeps the job until another worker claims it.
const held = `id = $1 AND workspace_id = $2 AND state = 'running' AND leased_by = $3`

// FailedInsightJobs lists jobs kept as failed, most recently failed first, of one workspace or of all when
// ws is "".
func (s *Store) FailedInsightJobs(ctx context.Context, ws core.ID) ([]core.InsightJob, error) {
	jobs, err := collectJobs(s.pool.Query(ctx, `SELECT `+jobCols+` FROM insight_jobs
		WHERE state = 'failed' AND ($1 = '' OR workspace_id = $1) ORDER BY updated_at DESC, id DESC`, ws))
	return jobs, fail("failed insight jobs", err)
}

// RetryInsightJobs queues failed jobs again with a fresh set of attempts: the one with id, or every failed
// job (of ws, or of all workspaces when ws is "") when id is "". A given id that is not a failed job of ws
// is core.ErrNotFound.
func (s *Store) RetryInsightJobs(ctx context.Context, ws core.ID, id core.ID) (int, error) {
	tag, err := s.pool.Exec(ctx, `UPDATE insight_jobs SET state = 'queued', attempts = 0, run_at = `+dbNow+`,
		updated_at = `+dbNow+` WHERE state = 'failed' AND ($1 = '' OR workspace_id = $1) AND ($2 = '' OR id = $2)`, ws, id)
	if err != nil {
		return 0, fail("retry insight jobs", err)
	}
	if tag.RowsAffected() == 0 && id != "" {
		return 0, fail("retry insight jobs", pgx.ErrNoRows)
	}
	return int(tag.RowsAffected()), nil
}

// InsightQueueDepth counts jobs waiting or running.
func (s *Store) InsightQueueDepth(ctx context.Context) (int, error) {
	var n int
	err := s.pool.QueryRow(ctx, `SELECT count(*) FROM insight_jobs WHERE state IN ('queued', 'running')`).Scan(&n)
	return n, fail("insight queue depth", err)
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

// InsightsOf returns the insights of many records of ws in one query, each record's in extraction order.
func (s *Store) InsightsOf(ctx context.Context, ws core.ID, recordIDs []core.ID) (map[core.ID][]core.Insight, error) {
	out := map[core.ID][]core.Insight{}
	if len(recordIDs) == 0 {
		return out, nil
	}
	list := make([]string, len(recordIDs))
	for i, id := range recordIDs {
		list[i] = string(id)
	}
	rows, err := s.pool.Query(ctx, `SELECT `+insightCols+` FROM insights i
		WHERE i.workspace_id = $1 AND i.record_id = ANY ($2::text[]) ORDER BY i.record_id, i.created_at, i.id`, ws, list)
	if err != nil {
		return nil, fail("insights of records", err)
	}
	ins, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (core.Insight, error) { return scanInsight(r) })
	if err != nil {
		return nil, fail("insights of records", err)
	}
	for _, in := range ins {
		out[in.RecordID] = append(out[in.RecordID], in)
	}
	return out, nil
}

// InsightRows returns the workspace's insights of records created within [from, to] (zero: open), each
// with the record's company name, for the signals roll-up.
func (s *Store) InsightRows(ctx context.Context, ws core.ID, from, to time.Time) ([]core.InsightRow, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+insightCols+`, coalesce(c.name, '') FROM insights i
		JOIN records r ON r.workspace_id = i.workspace_id AND r.id = i.record_id
		LEFT JOIN companies c ON c.workspace_id = r.workspace_id AND c.id = r.company_id
		WHERE i.workspace_id = $1 AND ($2::timestamptz IS NULL OR r.created_at >= $2) AND ($3::timestamptz IS NULL OR r.created_at <= $3)
		ORDER BY r.created_at, i.record_id, i.created_at, i.id`, ws, bound(from), bound(to))
	if err != nil {
		return nil, fail("insight rows", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (core.InsightRow, error) {
		var row core.InsightRow
		in, err := scanInsight(r, &row.Customer)
		row.Insight = in
		return row, err
	})
	return out, fail("insight rows", err)
}
