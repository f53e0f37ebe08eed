package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"time"

	"github.com/feedbridge/feedbridge/core"
)

const queueCols = `id, queue, kind, workspace_id, order_key, body, state, attempts, last_error, retry_for_ms, run_at,
	lease_until, leased_by, give_up_at, created_at, updated_at`

func scanQueueItem(sc scanner) (core.QueueItem, error) {
	var (
		it                                    core.QueueItem
		retryFor, runAt, giveUp, created, upd int64
		lease                                 sql.NullInt64
	)
	err := sc.Scan(&it.ID, &it.Queue, &it.Kind, &it.Workspace, &it.Key, &it.Body, &it.State, &it.Attempts, &it.LastError,
		&retryFor, &runAt, &lease, &it.LeasedBy, &giveUp, &created, &upd)
	it.RetryFor = time.Duration(retryFor) * time.Millisecond
	it.RunAt, it.LeaseUntil, it.GiveUpAt = fromMS(runAt), fromOptMS(lease), fromMS(giveUp)
	it.CreatedAt, it.UpdatedAt = fromMS(created), fromMS(upd)
	return it, err
}

// EnqueueItems stores items as queued and due now, in one write.
func (s *Store) EnqueueItems(ctx context.Context, items []core.QueueItem) error {
	for _, it := range items {
		if err := core.CheckQueueItem(it); err != nil {
			return err
		}
	}
	return s.write(ctx, "enqueue", func(tx *wtx) error { return s.enqueue(tx, items) })
}

// enqueue inserts items inside a write that is already open, so that a change and the work it causes
// commit or roll back together. A repeated (queue, id) is ignored: enqueueing is safe to repeat.
//
// Events are written here too, once, in the change's own transaction: the single writer commits changes
// one after another, so the queue's seq is the commit order and the events of a record are claimed in
// the order their changes committed. Each event's row and index entries are written in that commit and
// never again until its delivery claims and finishes it. A create queues its events with its insight job
// instead (queueCreated), to the same effect.
func (s *Store) enqueue(tx *wtx, items []core.QueueItem) error {
	now := s.nowMS()
	for _, it := range items {
		if _, err := tx.ExecContext(tx.ctx, itemInsert(1), appendItemArgs(make([]any, 0, jobInsertColCount), it, now)...); err != nil {
			return err
		}
	}
	return nil
}

// appendItemArgs appends the values of item it for jobInsertCols, queued and due at now.
func appendItemArgs(args []any, it core.QueueItem, now int64) []any {
	retryFor := retryWindow(it)
	created := now
	if !it.CreatedAt.IsZero() {
		created = ms(it.CreatedAt)
	}
	return append(args, it.ID, it.Queue, it.Kind, it.Workspace, it.Key, it.Body, core.JobQueued, retryFor.Milliseconds(),
		now, now+retryFor.Milliseconds(), created, now)
}

// retryWindow is how long it is retried: its own window, or the default.
func retryWindow(it core.QueueItem) time.Duration {
	if it.RetryFor == 0 {
		return core.DefaultRetryFor
	}
	return it.RetryFor
}

// createdEvents writes the record.created events of a bulk write's created records that have an outbox,
// each record read back as a single create returns it.
func (s *Store) createdEvents(tx *wtx, ws core.ID, rs []core.NewRecord, out []core.BulkResult) error {
	for i, nr := range rs {
		if nr.Outbox == nil || !out[i].Created {
			continue
		}
		rec, err := recordByID(tx.ctx, tx, ws, nr.ID)
		if err != nil {
			return err
		}
		events, err := nr.Outbox.Items(core.EventRecordCreated, rec, nil)
		if err != nil {
			return err
		}
		if err := s.enqueue(tx, events); err != nil {
			return err
		}
	}
	return nil
}

// claimable is the condition on q (a queue_items row) that it may be handed out now (?1, ?2: now): due or
// with an expired lease, and with no earlier pending item of its key.
const claimable = `((q.state = 'queued' AND q.run_at <= ?) OR (q.state = 'running' AND q.lease_until <= ?))
	AND (q.order_key = '' OR NOT EXISTS (SELECT 1 FROM queue_items e WHERE e.queue = q.queue
		AND e.order_key <> '' AND e.order_key = q.order_key AND e.seq < q.seq AND e.state <> 'failed'))`

// ClaimItems leases up to n claimable items of queue to worker, in enqueue order. The single writer makes
// the claim atomic.
func (s *Store) ClaimItems(ctx context.Context, queue, worker string, n int, lease time.Duration) ([]core.QueueItem, error) {
	out := []core.QueueItem{}
	if n <= 0 {
		return out, nil
	}
	err := s.write(ctx, "claim queue items", func(tx *wtx) error {
		now := s.nowMS()
		seqs, err := int64Column(tx.QueryContext(ctx, `SELECT q.seq FROM queue_items q
			WHERE q.queue = ? AND q.state <> 'failed' AND `+claimable+` ORDER BY q.seq LIMIT ?`, queue, now, now, n))
		if err != nil || len(seqs) == 0 {
			return err
		}
		args := []any{now + lease.Milliseconds(), worker, now}
		for _, seq := range seqs {
			args = append(args, seq)
		}
		in := strings.TrimSuffix(strings.Repeat("?, ", len(seqs)), ", ")
		if _, err := tx.ExecContext(ctx, `UPDATE queue_items SET state = 'running', attempts = attempts + 1,
			lease_until = ?, leased_by = ?, updated_at = ? WHERE seq IN (`+in+`)`, args...); err != nil {
			return err
		}
		rows, err := tx.QueryContext(ctx, `SELECT `+queueCols+` FROM queue_items WHERE seq IN (`+in+`) ORDER BY seq`, args[3:]...)
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

// heldItem is the condition that the item is still the worker's: running and leased to it.
const heldItem = `queue = ? AND id = ? AND workspace_id = ? AND state = 'running' AND leased_by = ?`

// FinishItem deletes a done item, only while worker holds it.
func (s *Store) FinishItem(ctx context.Context, it core.QueueItem, worker string) error {
	return s.write(ctx, "finish queue item", func(tx *wtx) error {
		return notHeld(tx.ExecContext(ctx, `DELETE FROM queue_items WHERE `+heldItem, it.Queue, it.ID, it.Workspace, worker))
	})
}

// FinishItems deletes, in one write, the done items worker still holds.
func (s *Store) FinishItems(ctx context.Context, items []core.QueueItem, worker string) ([]bool, error) {
	done := make([]bool, len(items))
	if len(items) == 0 {
		return done, nil
	}
	err := s.write(ctx, "finish queue items", func(tx *wtx) error {
		for i, it := range items {
			err := notHeld(tx.ExecContext(ctx, `DELETE FROM queue_items WHERE `+heldItem, it.Queue, it.ID, it.Workspace, worker))
			if err != nil && !errors.Is(err, core.ErrConflict) {
				return err
			}
			done[i] = err == nil
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return done, nil
}

// RetryItem records a failed attempt: due again after delay, or kept as failed when that is past its
// give-up time.
func (s *Store) RetryItem(ctx context.Context, it core.QueueItem, worker, msg string, delay time.Duration) (bool, error) {
	var failed bool
	err := s.write(ctx, "retry queue item", func(tx *wtx) error {
		now := s.nowMS()
		runAt := now + max(delay, 0).Milliseconds()
		err := tx.QueryRowContext(ctx, `UPDATE queue_items SET
				state = CASE WHEN ? > give_up_at THEN 'failed' ELSE 'queued' END,
				last_error = ?, run_at = ?, lease_until = NULL, leased_by = '', updated_at = ?
			WHERE `+heldItem+` RETURNING state = 'failed'`,
			runAt, msg, runAt, now, it.Queue, it.ID, it.Workspace, worker).Scan(&failed)
		if err == sql.ErrNoRows {
			return core.ErrConflict
		}
		return err
	})
	return failed, err
}

// ReleaseItem gives a claimed item back as it was before the claim (shutdown), only while worker holds it.
func (s *Store) ReleaseItem(ctx context.Context, it core.QueueItem, worker string) error {
	return s.write(ctx, "release queue item", func(tx *wtx) error {
		return notHeld(tx.ExecContext(ctx, `UPDATE queue_items SET state = 'queued', attempts = max(attempts - 1, 0),
			lease_until = NULL, leased_by = '', updated_at = ? WHERE `+heldItem,
			s.nowMS(), it.Queue, it.ID, it.Workspace, worker))
	})
}

// FailedItems lists the failed items of kind, of ws or of all when ws is "", most recently failed first.
func (s *Store) FailedItems(ctx context.Context, kind string, ws core.ID) ([]core.QueueItem, error) {
	rows, err := s.rq.QueryContext(ctx, `SELECT `+queueCols+` FROM queue_items
		WHERE state = 'failed' AND kind = ? AND (? = '' OR workspace_id = ?) ORDER BY updated_at DESC, seq DESC`,
		kind, ws, ws)
	if err != nil {
		return nil, s.fail("failed queue items", err)
	}
	out, err := collect(rows, scanQueueItem)
	return out, s.fail("failed queue items", err)
}

// RetryFailedItems requeues failed items of kind with fresh attempts and a fresh give-up time. A given id
// with no failed item of ws is ErrNotFound.
func (s *Store) RetryFailedItems(ctx context.Context, kind string, ws, id core.ID) (int, error) {
	var n int64
	err := s.write(ctx, "retry failed queue items", func(tx *wtx) error {
		now := s.nowMS()
		res, err := tx.ExecContext(ctx, `UPDATE queue_items SET state = 'queued', attempts = 0, run_at = ?,
				give_up_at = ? + retry_for_ms, updated_at = ?
			WHERE state = 'failed' AND kind = ? AND (? = '' OR workspace_id = ?) AND (? = '' OR id = ?)`,
			now, now, now, kind, ws, ws, id, id)
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

// QueueStats counts the items of queue by state.
func (s *Store) QueueStats(ctx context.Context, queue string) (core.QueueStats, error) {
	var st core.QueueStats
	// The pending items are counted on queue_items_pending alone and the failed ones through their own
	// index, so that no row is read: the insight pool's gauge and the benchmarks ask often, with the queue full.
	err := s.rq.QueryRowContext(ctx, `SELECT (SELECT count(*) FROM queue_items WHERE queue = ?1 AND state <> 'failed'),
		(SELECT count(*) FROM queue_items INDEXED BY queue_items_failed WHERE state = 'failed' AND queue = ?1)`,
		queue).Scan(&st.Pending, &st.Failed)
	return st, s.fail("queue stats", err)
}

// int64Column reads a one-column result of integers.
func int64Column(rows *sql.Rows, err error) ([]int64, error) {
	if err != nil {
		return nil, err
	}
	return collect(rows, func(sc scanner) (int64, error) {
		var v int64
		err := sc.Scan(&v)
		return v, err
	})
}

// PendingQueues lists the queues holding queued or running items of kind (of ws, or of all when ws is ""), sorted.
func (s *Store) PendingQueues(ctx context.Context, kind string, ws core.ID) ([]string, error) {
	rows, err := s.rq.QueryContext(ctx, `SELECT DISTINCT queue FROM queue_items
		WHERE kind = ? AND state <> 'failed' AND (? = '' OR workspace_id = ?) ORDER BY queue`, kind, ws, ws)
	if err != nil {
		return nil, s.fail("pending queues", err)
	}
	defer rows.Close()
	out := []string{}
	for rows.Next() {
		var q string
		if err := rows.Scan(&q); err != nil {
			return nil, s.fail("pending queues", err)
		}
		out = append(out, q)
	}
	return out, s.fail("pending queues", rows.Err())
}
