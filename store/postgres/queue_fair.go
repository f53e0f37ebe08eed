package postgres

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/feedbridge/feedbridge/core"
	"github.com/feedbridge/feedbridge/store/internal/fairshare"
)

// ClaimFair leases up to n claimable items of queue to worker: expired leases first, then due queued items
// dealt round robin from the workspaces that have some, oldest first within each. FOR UPDATE SKIP LOCKED
// lets every replica's workers claim at once without ever sharing an item; each replica keeps its own place
// in the rotation. A claim counts as an attempt. Every statement walks the queue_items_due or
// queue_items_running index and stops after what it takes.
func (s *Store) ClaimFair(ctx context.Context, queue, worker string, n int, lease time.Duration) ([]core.QueueItem, error) {
	if n <= 0 {
		return []core.QueueItem{}, nil
	}
	s.claimMu.Lock()
	after := s.claimAfter[queue]
	s.claimMu.Unlock()
	var (
		items []core.QueueItem
		wss   []string // the workspaces dealt from, by the attempt that committed
	)
	err := s.inTx(ctx, "claim queue items", func(tx pgx.Tx) error {
		// Right after a bulk import the table's statistics can say a workspace has an item or two when it
		// has tens of thousands; the planner then reads them all through a bitmap and sorts them, per claim.
		// Without bitmap scans the only cheap plan left is the index walk in claim order. The commit does
		// not wait for the disk, as in ClaimItems: a claim lost in a crash leaves its items queued.
		if _, err := tx.Exec(ctx, `SET LOCAL enable_bitmapscan = off; SET LOCAL synchronous_commit = off`); err != nil {
			return err
		}
		var err error
		wss, err = fairshare.Rotation(after, n, func(after string) (string, error) {
			var ws string
			err := tx.QueryRow(ctx, `SELECT workspace_id FROM queue_items WHERE queue = $1 AND state = 'queued'
				AND workspace_id > $2 AND run_at <= clock_timestamp() ORDER BY workspace_id LIMIT 1`, queue, after).Scan(&ws)
			if errors.Is(err, pgx.ErrNoRows) {
				return "", nil
			}
			return ws, err
		})
		if err != nil {
			return err
		}
		items, err = collectQueueItems(tx.Query(ctx, claimFairSQL, n, wss, worker, lease.Milliseconds(), queue))
		return err
	})
	if err != nil {
		return nil, err
	}
	// The rotation moves on only once the claim is committed, not for an attempt that was rolled back.
	if len(wss) > 0 {
		s.claimMu.Lock()
		s.claimAfter[queue] = wss[len(wss)-1]
		s.claimMu.Unlock()
	}
	return items, nil
}

// claimFairSQL leases, in one statement, up to $1 items of queue $5: expired leases first, then the oldest
// due items of each workspace in $2, dealt in turn. An item with an earlier pending item of its key waits
// for it, as in ClaimItems.
const claimFairSQL = `
		WITH stale AS (
			SELECT seq FROM queue_items WHERE queue = $5 AND state = 'running' AND lease_until <= clock_timestamp()
			ORDER BY lease_until, seq LIMIT $1 FOR UPDATE SKIP LOCKED),
		heads AS (
			SELECT h.seq, h.turn, w.pos FROM unnest($2::text[]) WITH ORDINALITY AS w (ws, pos) CROSS JOIN LATERAL (
				SELECT seq, row_number() OVER () AS turn FROM (
					SELECT q.seq FROM queue_items q WHERE q.queue = $5 AND q.state = 'queued' AND q.workspace_id = w.ws
						AND q.run_at <= clock_timestamp()
						AND (q.order_key = '' OR NOT EXISTS (SELECT 1 FROM queue_items e WHERE e.queue = q.queue
							AND e.order_key <> '' AND e.order_key = q.order_key AND e.seq < q.seq AND e.state <> 'failed'))
					ORDER BY q.run_at, q.seq LIMIT $1 FOR UPDATE SKIP LOCKED) oldest) h),
		due AS ((SELECT seq, 0 AS turn, 0 AS pos FROM stale UNION ALL SELECT seq, turn, pos FROM heads) ORDER BY turn, pos LIMIT $1),
		claimed AS (
			UPDATE queue_items q SET state = 'running', attempts = q.attempts + 1, leased_by = $3,
				lease_until = ` + dbNow + ` + $4 * interval '1 millisecond', updated_at = ` + dbNow + `
			FROM due WHERE q.seq = due.seq RETURNING q.*)
		SELECT ` + queueCols + ` FROM claimed`

// FailItem records a failed attempt: due again at runAt, or kept as failed when final.
func (s *Store) FailItem(ctx context.Context, it core.QueueItem, worker, msg string, runAt time.Time, final bool) error {
	state := core.JobQueued
	if final {
		state = core.JobFailed
	}
	return s.jobUpdate(ctx, "fail queue item", `UPDATE queue_items SET state = $5, last_error = $6, run_at = $7,
		lease_until = NULL, leased_by = '', updated_at = `+dbNow+` WHERE `+heldItem,
		it.Queue, it.ID, it.Workspace, worker, state, msg, ms(runAt))
}

// ExtendHeld pushes back the lease of every item of queue that worker holds, in one statement: the
// heartbeat that keeps a slow worker's claim alive, and that stops when the worker's process dies.
func (s *Store) ExtendHeld(ctx context.Context, queue, worker string, lease time.Duration) (int, error) {
	tag, err := s.pool.Exec(ctx, `UPDATE queue_items SET lease_until = `+dbNow+` + $3 * interval '1 millisecond'
		WHERE queue = $1 AND state = 'running' AND leased_by = $2`, queue, worker, lease.Milliseconds())
	if err != nil {
		return 0, fail("extend queue items", err)
	}
	return int(tag.RowsAffected()), nil
}

// ReleaseHeld gives back every item of queue that worker holds, except those in keep, as before its claim.
func (s *Store) ReleaseHeld(ctx context.Context, queue, worker string, keep []core.ID) (int, error) {
	ids := make([]string, len(keep))
	for i, id := range keep {
		ids[i] = string(id)
	}
	tag, err := s.pool.Exec(ctx, `UPDATE queue_items SET state = 'queued', attempts = greatest(attempts - 1, 0),
		lease_until = NULL, leased_by = '', updated_at = `+dbNow+`
		WHERE queue = $1 AND state = 'running' AND leased_by = $2 AND NOT (id = ANY ($3::text[]))`, queue, worker, ids)
	if err != nil {
		return 0, fail("release queue items", err)
	}
	return int(tag.RowsAffected()), nil
}

// KeptItems lists the items of queue kept for ws, oldest first.
func (s *Store) KeptItems(ctx context.Context, queue string, ws core.ID) ([]core.QueueItem, error) {
	out, err := collectQueueItems(s.pool.Query(ctx, `SELECT `+queueCols+` FROM queue_items
		WHERE queue = $1 AND workspace_id = $2 ORDER BY seq`, queue, ws))
	return out, fail("kept queue items", err)
}
