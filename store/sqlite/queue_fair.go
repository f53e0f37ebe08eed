package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"strings"
	"time"

	"github.com/feedbridge/feedbridge/core"
	"github.com/feedbridge/feedbridge/store/internal/fairshare"
)

// ClaimFair leases up to n claimable items of queue to worker: running ones whose holder let the lease
// run out (a crashed worker) first, then due queued ones taken in turn from each workspace that has some
// (round robin, oldest first within a workspace), so that one workspace's backlog never holds up
// another's work. The single writer makes the claim atomic: two claimers never share an item.
//
// Every step reads the queue_items_due index in the order it needs and stops after what it takes, so a
// claim costs the same with a hundred queued items as with a hundred thousand.
func (s *Store) ClaimFair(ctx context.Context, queue, worker string, n int, lease time.Duration) ([]core.QueueItem, error) {
	out := []core.QueueItem{}
	if n <= 0 {
		return out, nil
	}
	err := s.write(ctx, "claim queue items", func(tx *wtx) error {
		now := s.nowMS()
		seqs, err := int64Column(tx.QueryContext(ctx, `SELECT seq FROM queue_items WHERE queue = ? AND state = 'running'
			AND lease_until <= ? ORDER BY lease_until, seq LIMIT ?`, queue, now, n))
		if err != nil {
			return err
		}
		if len(seqs) < n {
			heads, err := s.fairHeads(ctx, tx, queue, now, n-len(seqs))
			if err != nil {
				return err
			}
			seqs = append(seqs, heads...)
		}
		if len(seqs) == 0 {
			return nil
		}
		args := []any{now + lease.Milliseconds(), worker, now}
		for _, seq := range seqs {
			args = append(args, seq)
		}
		rows, err := tx.QueryContext(ctx, `UPDATE queue_items SET state = 'running', attempts = attempts + 1,
			lease_until = ?, leased_by = ?, updated_at = ?
			WHERE seq IN (`+strings.TrimSuffix(strings.Repeat("?, ", len(seqs)), ", ")+`) RETURNING `+queueCols, args...)
		if err != nil {
			return err
		}
		out, err = collect(rows, scanQueueItem)
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// fairNextWorkspace (queue, after, now) finds the next workspace after the given one with due items of
// queue. fairWorkspaceHeads (queue, workspace, now, n) lists the seq of a workspace's oldest due items
// whose key has no earlier pending item. Both read queue_items_due, which holds the insight queue only.
const (
	fairNextWorkspace = `SELECT workspace_id FROM queue_items WHERE queue = ? AND state = 'queued'
		AND workspace_id > ? AND run_at <= ? ORDER BY workspace_id LIMIT 1`
	fairWorkspaceHeads = `SELECT q.seq FROM queue_items q WHERE q.queue = ?
		AND q.state = 'queued' AND q.workspace_id = ? AND q.run_at <= ?
		AND (q.order_key = '' OR NOT EXISTS (SELECT 1 FROM queue_items e WHERE e.queue = q.queue
			AND e.order_key <> '' AND e.order_key = q.order_key AND e.seq < q.seq AND e.state <> 'failed'))
		ORDER BY q.run_at, q.seq LIMIT ?`
)

// fairHeads picks up to n due queued items of queue: the next workspaces with due items after the one the
// last claim of queue ended on (wrapping around), then the oldest items of each, dealt out in turn. An
// item with an earlier pending item of its key waits for it, as in ClaimItems; the order_key <> ” that
// the key's own test implies lets the planner take the queue_items_key index for that lookup.
func (s *Store) fairHeads(ctx context.Context, tx *wtx, queue string, now int64, n int) ([]int64, error) {
	next := func(after string) (string, error) {
		var ws string
		err := tx.QueryRowContext(ctx, fairNextWorkspace, queue, after, now).Scan(&ws)
		if err == sql.ErrNoRows {
			return "", nil
		}
		return ws, err
	}
	wss, err := fairshare.Rotation(s.claimAfter[queue], n, next)
	if err != nil || len(wss) == 0 {
		return nil, err
	}
	heads := make([][]int64, len(wss))
	for i, ws := range wss {
		if heads[i], err = int64Column(tx.QueryContext(ctx, fairWorkspaceHeads, queue, ws, now, n)); err != nil {
			return nil, err
		}
	}
	s.claimAfter[queue] = wss[len(wss)-1]
	return fairshare.Interleave(heads, n), nil
}

// FailItem records a failed attempt: due again at runAt, or kept as failed when final.
func (s *Store) FailItem(ctx context.Context, it core.QueueItem, worker, msg string, runAt time.Time, final bool) error {
	state := core.JobQueued
	if final {
		state = core.JobFailed
	}
	return s.write(ctx, "fail queue item", func(tx *wtx) error {
		return notHeld(tx.ExecContext(ctx, `UPDATE queue_items SET state = ?, last_error = ?, run_at = ?, lease_until = NULL,
			leased_by = '', updated_at = ? WHERE `+heldItem, state, msg, ms(runAt), s.nowMS(), it.Queue, it.ID, it.Workspace, worker))
	})
}

// ExtendHeld pushes back the lease of every item of queue that worker holds: the worker's heartbeat.
func (s *Store) ExtendHeld(ctx context.Context, queue, worker string, lease time.Duration) (int, error) {
	var n int64
	err := s.write(ctx, "extend queue items", func(tx *wtx) error {
		res, err := tx.ExecContext(ctx, `UPDATE queue_items SET lease_until = ? WHERE queue = ? AND state = 'running'
			AND leased_by = ?`, s.nowMS()+lease.Milliseconds(), queue, worker)
		if err == nil {
			n, err = res.RowsAffected()
		}
		return err
	})
	return int(n), err
}

// ReleaseHeld puts every item of queue that worker holds, except those in keep, back as before its claim.
func (s *Store) ReleaseHeld(ctx context.Context, queue, worker string, keep []core.ID) (int, error) {
	if keep == nil {
		keep = []core.ID{}
	}
	ids, err := json.Marshal(keep)
	if err != nil {
		return 0, err
	}
	var n int64
	err = s.write(ctx, "release queue items", func(tx *wtx) error {
		res, err := tx.ExecContext(ctx, `UPDATE queue_items SET state = 'queued', attempts = max(attempts - 1, 0),
			lease_until = NULL, leased_by = '', updated_at = ? WHERE queue = ? AND state = 'running' AND leased_by = ?
			AND id NOT IN (SELECT value FROM json_each(?))`, s.nowMS(), queue, worker, string(ids))
		if err == nil {
			n, err = res.RowsAffected()
		}
		return err
	})
	return int(n), err
}

// KeptItems lists the items of queue kept for ws, oldest first. No index is led by the queue for every
// state: the pending items are found through queue_items_pending, the failed ones through their own index.
func (s *Store) KeptItems(ctx context.Context, queue string, ws core.ID) ([]core.QueueItem, error) {
	rows, err := s.rq.QueryContext(ctx, `SELECT `+queueCols+` FROM queue_items WHERE seq IN (
			SELECT seq FROM queue_items WHERE queue = ?1 AND state <> 'failed'
			UNION ALL SELECT seq FROM queue_items INDEXED BY queue_items_failed WHERE state = 'failed' AND queue = ?1)
		AND workspace_id = ?2 ORDER BY seq`, queue, ws)
	if err != nil {
		return nil, s.fail("kept queue items", err)
	}
	out, err := collect(rows, scanQueueItem)
	return out, s.fail("kept queue items", err)
}

// notHeld turns "no row matched" into core.ErrConflict: the worker's lease ran out and another took it.
func notHeld(res sql.Result, err error) error {
	err = mustChange(res, err)
	if errors.Is(err, sql.ErrNoRows) {
		return core.ErrConflict
	}
	return err
}
