package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"

	"github.com/feedbridge/feedbridge/core"
)

// heldJob is the condition that an insight job (id, workspace) is still the worker's: running and leased
// to it. A worker whose lease ran out keeps the job until someone else claims it.
const heldJob = `queue = '` + core.InsightQueue + `' AND id = ? AND workspace_id = ? AND state = 'running' AND leased_by = ?`

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
	if err := heldChange(tx.ExecContext(ctx, `DELETE FROM queue_items WHERE `+heldJob, job.ID, job.Workspace, worker)); err != nil {
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
