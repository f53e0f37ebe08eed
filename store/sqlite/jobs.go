package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/feedbridge/feedbridge/core"
)

const jobCols = `id, workspace_id, record_id, state, attempts, max_attempts, last_error, run_at, lease_until, leased_by, created_at, updated_at`

func scanJob(sc scanner) (core.InsightJob, error) {
	var (
		j                       core.InsightJob
		runAt, created, updated int64
		lease                   sql.NullInt64
	)
	err := sc.Scan(&j.ID, &j.Workspace, &j.RecordID, &j.State, &j.Attempts, &j.MaxAttempts, &j.LastError, &runAt, &lease,
		&j.LeasedBy, &created, &updated)
	j.RunAt, j.LeaseUntil, j.CreatedAt, j.UpdatedAt = fromMS(runAt), fromOptMS(lease), fromMS(created), fromMS(updated)
	return j, err
}

// held is the condition that the job is still the worker's: running and leased to it. A worker whose lease
// ran out keeps the job until someone else claims it.
const held = `id = ? AND workspace_id = ? AND state = 'running' AND leased_by = ?`

// errNotHeld is returned when a worker finishes a job it no longer holds; its result is dropped.
var errNotHeld = fmt.Errorf("insight job is not held by this worker: %w", core.ErrConflict)

// CompleteInsightJob replaces the record's insights with ins and marks the job done, in one transaction and
// only while worker holds the job.
func (s *Store) CompleteInsightJob(ctx context.Context, job core.InsightJob, worker string, ins []core.Insight) error {
	return s.write(ctx, "complete insight job", func(tx *wtx) error {
		if err := completeJob(ctx, tx, job, worker, ins, s.nowMS()); err != nil {
			return err
		}
		return rollupRecords(ctx, tx, []core.ID{job.RecordID})
	})
}

// CompleteInsightJobs completes every job of results that worker still holds in one write, so jobs that
// finish together share a transaction and its commit; the others are returned, untouched.
func (s *Store) CompleteInsightJobs(ctx context.Context, worker string, results []core.JobResult) ([]core.ID, error) {
	notHeld := []core.ID{}
	if len(results) == 0 {
		return notHeld, nil
	}
	err := s.write(ctx, "complete insight jobs", func(tx *wtx) error {
		notHeld = notHeld[:0]
		now := s.nowMS()
		var written []core.ID
		for _, r := range results {
			err := completeJob(ctx, tx, r.Job, worker, r.Insights, now)
			if errors.Is(err, errNotHeld) {
				notHeld = append(notHeld, r.Job.ID)
				continue
			}
			if err != nil {
				return err
			}
			if !slices.Contains(written, r.Job.RecordID) {
				written = append(written, r.Job.RecordID)
			}
		}
		return rollupRecords(ctx, tx, written)
	})
	if err != nil {
		return nil, err
	}
	return notHeld, nil
}

// completeJob marks the job done and replaces its record's insights with ins; errNotHeld, with nothing
// written, when worker no longer holds it.
func completeJob(ctx context.Context, tx *wtx, job core.InsightJob, worker string, ins []core.Insight, now int64) error {
	if err := heldChange(tx.ExecContext(ctx, `UPDATE insight_jobs SET state = 'done', lease_until = NULL, leased_by = '',
		last_error = '', updated_at = ? WHERE `+held, now, job.ID, job.Workspace, worker)); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM insights WHERE workspace_id = ? AND record_id = ?`, job.Workspace, job.RecordID); err != nil {
		return err
	}
	for _, in := range ins {
		if err := insertInsight(ctx, tx, job, in, now); err != nil {
			return err
		}
	}
	return nil
}

// FailInsightJob records a failed attempt: back to the queue at retryAt, or kept as failed when final.
func (s *Store) FailInsightJob(ctx context.Context, job core.InsightJob, worker string, msg string, retryAt time.Time, final bool) error {
	state := core.JobQueued
	if final {
		state = core.JobFailed
	}
	return s.write(ctx, "fail insight job", func(tx *wtx) error {
		return heldChange(tx.ExecContext(ctx, `UPDATE insight_jobs SET state = ?, last_error = ?, run_at = ?, lease_until = NULL,
			leased_by = '', updated_at = ? WHERE `+held, state, msg, ms(retryAt), s.nowMS(), job.ID, job.Workspace, worker))
	})
}

// ReleaseInsightJob puts a claimed job back as it was before the claim, attempt included.
func (s *Store) ReleaseInsightJob(ctx context.Context, job core.InsightJob, worker string) error {
	return s.write(ctx, "release insight job", func(tx *wtx) error {
		return heldChange(tx.ExecContext(ctx, `UPDATE insight_jobs SET `+released+` WHERE `+held, s.nowMS(), job.ID, job.Workspace, worker))
	})
}

// ReleaseInsightJobs puts every job worker holds, except those in keep, back as before its claim.
func (s *Store) ReleaseInsightJobs(ctx context.Context, worker string, keep []core.ID) (int, error) {
	ids, err := json.Marshal(nonNilIDs(keep))
	if err != nil {
		return 0, err
	}
	var n int64
	err = s.write(ctx, "release insight jobs", func(tx *wtx) error {
		res, err := tx.ExecContext(ctx, `UPDATE insight_jobs SET `+released+` WHERE state = 'running' AND leased_by = ?
			AND id NOT IN (SELECT value FROM json_each(?))`, s.nowMS(), worker, string(ids))
		if err == nil {
			n, err = res.RowsAffected()
		}
		return err
	})
	return int(n), err
}

// released is the change that gives a claimed job back (its one parameter is the time of the change): queued
// and due as before, and the claim's attempt not counted.
const released = `state = 'queued', attempts = max(attempts - 1, 0), lease_until = NULL, leased_by = '', updated_at = ?`

func nonNilIDs(ids []core.ID) []core.ID {
	if ids == nil {
		return []core.ID{}
	}
	return ids
}

// ExtendInsightJobs pushes back the lease of every job worker holds: the worker's heartbeat.
func (s *Store) ExtendInsightJobs(ctx context.Context, worker string, lease time.Duration) (int, error) {
	var n int64
	err := s.write(ctx, "extend insight jobs", func(tx *wtx) error {
		res, err := tx.ExecContext(ctx, `UPDATE insight_jobs SET lease_until = ? WHERE state = 'running' AND leased_by = ?`,
			s.nowMS()+lease.Milliseconds(), worker)
		if err == nil {
			n, err = res.RowsAffected()
		}
		return err
	})
	return int(n), err
}

func heldChange(res sql.Result, err error) error {
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err != nil || n == 0 {
		if err == nil {
			err = errNotHeld
		}
		return err
	}
	return nil
}

// FailedInsightJobs lists failed jobs, most recently failed first; ws "" lists every workspace's.
func (s *Store) FailedInsightJobs(ctx context.Context, ws core.ID) ([]core.InsightJob, error) {
	rows, err := s.rq.QueryContext(ctx, `SELECT `+jobCols+` FROM insight_jobs WHERE state = 'failed' AND (? = '' OR workspace_id = ?)
		ORDER BY updated_at DESC, id DESC`, ws, ws)
	if err != nil {
		return nil, s.fail("failed insight jobs", err)
	}
	out, err := collect(rows, scanJob)
	return out, s.fail("failed insight jobs", err)
}

// RetryInsightJobs requeues failed jobs with fresh attempts: the one with id, or all (of ws, or of every
// workspace when ws is ""). A given id that is not a failed job of ws is ErrNotFound.
func (s *Store) RetryInsightJobs(ctx context.Context, ws, id core.ID) (int, error) {
	var n int64
	err := s.write(ctx, "retry insight jobs", func(tx *wtx) error {
		now := s.nowMS()
		res, err := tx.ExecContext(ctx, `UPDATE insight_jobs SET state = 'queued', attempts = 0, run_at = ?, updated_at = ?
			WHERE state = 'failed' AND (? = '' OR workspace_id = ?) AND (? = '' OR id = ?)`, now, now, ws, ws, id, id)
		if err != nil {
			return err
		}
		if n, err = res.RowsAffected(); err == nil && n == 0 && id != "" {
			err = sql.ErrNoRows
		}
		return err
	})
	return int(n), err
}

// InsightQueueDepth counts the jobs still to do: queued and running.
func (s *Store) InsightQueueDepth(ctx context.Context) (int, error) {
	var n int
	err := s.rq.QueryRowContext(ctx, `SELECT (SELECT count(*) FROM insight_jobs WHERE state = 'queued')
		+ (SELECT count(*) FROM insight_jobs WHERE state = 'running')`).Scan(&n)
	return n, s.fail("insight queue depth", err)
}
