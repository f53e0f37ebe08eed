package sqlite

import (
	"context"
	"database/sql"
	"strings"
	"time"

	"github.com/feedbridge/feedbridge/core"
	"github.com/feedbridge/feedbridge/store/internal/fairshare"
)

// ClaimInsightJobs leases up to n due jobs to worker: running ones whose holder let the lease run out (a
// crashed worker) first, then queued ones whose time has come, taken in turn from each workspace that has
// some (round robin, oldest first within a workspace), so that one workspace's backlog never holds up
// another's feedback. Each claim counts as an attempt, so a job that kills its worker still ends as failed.
// The single writer makes the claim atomic: two claimers never share a job.
//
// Every step reads an index in the order it needs and stops after what it takes, so a claim costs the
// same with a hundred queued jobs as with a hundred thousand.
func (s *Store) ClaimInsightJobs(ctx context.Context, worker string, n int, lease time.Duration) ([]core.InsightJob, error) {
	if n <= 0 {
		return []core.InsightJob{}, nil
	}
	var out []core.InsightJob
	err := s.write(ctx, "claim insight jobs", func(tx *wtx) error {
		now := s.nowMS()
		ids, err := column(tx.QueryContext(ctx, `SELECT id FROM insight_jobs WHERE state = 'running' AND lease_until <= ?
			ORDER BY lease_until, id LIMIT ?`, now, n))
		if err != nil {
			return err
		}
		if len(ids) < n {
			heads, err := s.fairHeads(ctx, tx, now, n-len(ids))
			if err != nil {
				return err
			}
			ids = append(ids, heads...)
		}
		if len(ids) == 0 {
			out = []core.InsightJob{}
			return nil
		}
		args := []any{now + lease.Milliseconds(), worker, now}
		for _, id := range ids {
			args = append(args, id)
		}
		rows, err := tx.QueryContext(ctx, `UPDATE insight_jobs SET state = 'running', attempts = attempts + 1,
			lease_until = ?, leased_by = ?, updated_at = ?
			WHERE id IN (`+strings.TrimSuffix(strings.Repeat("?, ", len(ids)), ", ")+`) RETURNING `+jobCols, args...)
		if err != nil {
			return err
		}
		out, err = collect(rows, scanJob)
		return err
	})
	if err != nil {
		return nil, err
	}
	fairshare.SortJobs(out)
	return out, nil
}

// fairHeads picks up to n due queued jobs: the next workspaces with due jobs after the one the last claim
// ended on (wrapping around), then the oldest jobs of each, dealt out in turn.
func (s *Store) fairHeads(ctx context.Context, tx *wtx, now int64, n int) ([]string, error) {
	next := func(after string) (string, error) {
		var ws string
		err := tx.QueryRowContext(ctx, `SELECT workspace_id FROM insight_jobs WHERE state = 'queued' AND workspace_id > ?
			AND run_at <= ? ORDER BY workspace_id LIMIT 1`, after, now).Scan(&ws)
		if err == sql.ErrNoRows {
			return "", nil
		}
		return ws, err
	}
	wss, err := fairshare.Rotation(s.claimAfter, n, next)
	if err != nil || len(wss) == 0 {
		return nil, err
	}
	heads := make([][]string, len(wss))
	for i, ws := range wss {
		if heads[i], err = column(tx.QueryContext(ctx, `SELECT id FROM insight_jobs WHERE state = 'queued' AND workspace_id = ?
			AND run_at <= ? ORDER BY run_at, id LIMIT ?`, ws, now, n)); err != nil {
			return nil, err
		}
	}
	ids := fairshare.Interleave(heads, n)
	s.claimAfter = wss[len(wss)-1]
	return ids, nil
}

// column reads a one-column result.
func column(rows *sql.Rows, err error) ([]string, error) {
	if err != nil {
		return nil, err
	}
	return collect(rows, func(sc scanner) (string, error) {
		var v string
		err := sc.Scan(&v)
		return v, err
	})
}
