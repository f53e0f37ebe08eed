package postgres

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/feedbridge/feedbridge/core"
	"github.com/feedbridge/feedbridge/store/internal/fairshare"
)

// ClaimInsightJobs leases up to n due jobs to worker, expired leases first, then queued jobs dealt round
// robin from the workspaces that have due ones. FOR UPDATE SKIP LOCKED lets every replica's workers claim
// at once without ever sharing a job; each replica keeps its own place in the rotation. A claim counts as
// an attempt. Both statements walk the insight_jobs_fair index and stop after what they take.
func (s *Store) ClaimInsightJobs(ctx context.Context, worker string, n int, lease time.Duration) ([]core.InsightJob, error) {
	if n <= 0 {
		return []core.InsightJob{}, nil
	}
	s.claimMu.Lock()
	after := s.claimAfter
	s.claimMu.Unlock()
	var jobs []core.InsightJob
	err := s.inTx(ctx, "claim insight jobs", func(tx pgx.Tx) error {
		// Right after a bulk import the table's statistics can say a workspace has a job or two when it has
		// tens of thousands; the planner then reads them all through a bitmap and sorts them, per claim.
		// Without bitmap scans the only cheap plan left is the index walk in claim order.
		if _, err := tx.Exec(ctx, `SET LOCAL enable_bitmapscan = off`); err != nil {
			return err
		}
		wss, err := fairshare.Rotation(after, n, func(after string) (string, error) {
			var ws string
			err := tx.QueryRow(ctx, `SELECT workspace_id FROM insight_jobs WHERE state = 'queued' AND workspace_id > $1
				AND run_at <= clock_timestamp() ORDER BY workspace_id LIMIT 1`, after).Scan(&ws)
			if errors.Is(err, pgx.ErrNoRows) {
				return "", nil
			}
			return ws, err
		})
		if err != nil {
			return err
		}
		if len(wss) > 0 {
			s.claimMu.Lock()
			s.claimAfter = wss[len(wss)-1]
			s.claimMu.Unlock()
		}
		jobs, err = collectJobs(tx.Query(ctx, claimSQL, n, wss, worker, lease.Milliseconds()))
		return err
	})
	if err != nil {
		return nil, err
	}
	fairshare.SortJobs(jobs)
	return jobs, nil
}

// claimSQL leases, in one statement, up to $1 jobs: expired leases first, then the oldest due jobs of each
// workspace in $2, dealt in turn.
const claimSQL = `
		WITH stale AS (
			SELECT id FROM insight_jobs WHERE state = 'running' AND lease_until <= clock_timestamp()
			ORDER BY lease_until, id LIMIT $1 FOR UPDATE SKIP LOCKED),
		heads AS (
			SELECT h.id, h.turn, w.pos FROM unnest($2::text[]) WITH ORDINALITY AS w (ws, pos) CROSS JOIN LATERAL (
				SELECT id, row_number() OVER () AS turn FROM (
					SELECT id FROM insight_jobs WHERE state = 'queued' AND workspace_id = w.ws AND run_at <= clock_timestamp()
					ORDER BY run_at, id LIMIT $1 FOR UPDATE SKIP LOCKED) oldest) h),
		due AS ((SELECT id, 0 AS turn, 0 AS pos FROM stale UNION ALL SELECT id, turn, pos FROM heads) ORDER BY turn, pos LIMIT $1)
		UPDATE insight_jobs j SET state = 'running', attempts = j.attempts + 1, leased_by = $3,
			lease_until = ` + dbNow + ` + $4 * interval '1 millisecond', updated_at = ` + dbNow + `
		FROM due WHERE j.id = due.id
		RETURNING j.id, j.workspace_id, j.record_id, j.state, j.attempts, j.max_attempts, j.last_error, j.run_at,
			j.lease_until, j.leased_by, j.created_at, j.updated_at`
