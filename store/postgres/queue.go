package postgres

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/feedbridge/feedbridge/core"
)

const queueCols = `id, queue, kind, workspace_id, order_key, body, state, attempts, last_error, retry_for_ms, run_at,
	lease_until, leased_by, give_up_at, created_at, updated_at`

func collectQueueItems(rows pgx.Rows, err error) ([]core.QueueItem, error) {
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (core.QueueItem, error) {
		var (
			it       core.QueueItem
			retryFor int64
			lease    *time.Time
		)
		err := r.Scan(&it.ID, &it.Queue, &it.Kind, &it.Workspace, &it.Key, &it.Body, &it.State, &it.Attempts,
			&it.LastError, &retryFor, &it.RunAt, &lease, &it.LeasedBy, &it.GiveUpAt, &it.CreatedAt, &it.UpdatedAt)
		it.RetryFor = time.Duration(retryFor) * time.Millisecond
		it.RunAt, it.LeaseUntil, it.GiveUpAt = ms(it.RunAt), fromOpt(lease), ms(it.GiveUpAt)
		it.CreatedAt, it.UpdatedAt = ms(it.CreatedAt), ms(it.UpdatedAt)
		return it, err
	})
}

// execer is a pool or a transaction: enqueue runs inside the transaction of the change that causes the work.
type execer interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
}

// EnqueueItems stores items as queued and due now by the database's clock, in one transaction.
func (s *Store) EnqueueItems(ctx context.Context, items []core.QueueItem) error {
	for _, it := range items {
		if err := core.CheckQueueItem(it); err != nil {
			return err
		}
	}
	return s.inTx(ctx, "enqueue", func(tx pgx.Tx) error { return enqueue(ctx, tx, items) })
}

// enqueueSQL inserts one item ($1-$7, $9 its creation time or null for now), only when $8 is "" or the id of a record of its workspace: a
// pipelined create whose record yielded to another with its dedup key writes no event.
const enqueueSQL = `INSERT INTO queue_items (` + queueCols + `)
	SELECT $1, $2, $3, $4, $5, $6, 'queued', 0, '', $7::bigint, ` + dbNow + `, NULL, '',
		` + dbNow + ` + $7::bigint * interval '1 millisecond', coalesce($9, ` + dbNow + `), ` + dbNow + `
	WHERE $8::text = '' OR EXISTS (SELECT 1 FROM records WHERE workspace_id = $4 AND id = $8::text)
	ON CONFLICT (queue, id) DO NOTHING`

// enqueueArgs are enqueueSQL's arguments for it, guarded by the record id guard ("" for none).
func enqueueArgs(it core.QueueItem, guard core.ID) []any {
	retryFor := it.RetryFor
	if retryFor == 0 {
		retryFor = core.DefaultRetryFor
	}
	return []any{it.ID, it.Queue, it.Kind, it.Workspace, it.Key, it.Body, retryFor.Milliseconds(), guard,
		optTime(it.CreatedAt)}
}

// enqueue inserts items with db, so that a change and the work it causes commit or roll back together.
// A repeated (queue, id) is ignored: enqueueing is safe to repeat. The seq order is the claim order; a
// change that enqueues after it has locked its record's row keeps one record's items in commit order.
func enqueue(ctx context.Context, db execer, items []core.QueueItem) error {
	for _, it := range items {
		if _, err := db.Exec(ctx, enqueueSQL, enqueueArgs(it, "")...); err != nil {
			return err
		}
	}
	return nil
}

// queueEvents adds a created record's events to its pipelined batch, written only if the record was.
func queueEvents(b *pgx.Batch, record core.ID, items []core.QueueItem) {
	for _, it := range items {
		b.Queue(enqueueSQL, enqueueArgs(it, record)...)
	}
}

// createdEvents writes the record.created events of a bulk write's created records that have an outbox,
// each record read back as a single create returns it.
func (s *Store) createdEvents(ctx context.Context, tx pgx.Tx, ws core.ID, rs []core.NewRecord, out []core.BulkResult) error {
	for i, nr := range rs {
		if nr.Outbox == nil || !out[i].Created {
			continue
		}
		rec, err := s.record(ctx, tx, ws, nr.ID)
		if err != nil {
			return err
		}
		events, err := nr.Outbox.Items(core.EventRecordCreated, rec, nil)
		if err != nil {
			return err
		}
		if err := enqueue(ctx, tx, events); err != nil {
			return err
		}
	}
	return nil
}

// ClaimItems leases, in one statement, up to n claimable items of queue to worker in enqueue order;
// replicas claiming at once skip each other's rows. An item whose earlier item of the same key another
// replica is claiming still counts that one as pending (the row is locked, not gone), so the order holds.
//
// The claim must walk the queue's pending index in order and stop after n: without fresh statistics (a
// new table, autovacuum off) the planner otherwise collects and sorts every pending item, each checked
// against its key, which took seconds at a few thousand pending events. The statement runs in its own
// transaction with bitmap scans and sorts off, which leaves it that ordered walk whatever the statistics
// (and JIT off: the penalty a disabled sort carries in the cost would otherwise trigger a compilation that
// costs more than the claim). Its commit does not wait for the disk either: a claim lost in a crash leaves
// the items queued, as if never claimed.
func (s *Store) ClaimItems(ctx context.Context, queue, worker string, n int, lease time.Duration) ([]core.QueueItem, error) {
	if n <= 0 {
		return []core.QueueItem{}, nil
	}
	var out []core.QueueItem
	err := s.tx(ctx, func(tx pgx.Tx) error {
		var err error
		if _, err = tx.Exec(ctx, `SET LOCAL enable_bitmapscan = off; SET LOCAL enable_sort = off; SET LOCAL jit = off; SET LOCAL synchronous_commit = off`); err != nil {
			return err
		}
		out, err = collectQueueItems(tx.Query(ctx, `
		WITH due AS (
			SELECT q.seq FROM queue_items q WHERE q.queue = $1 AND q.state <> 'failed'
				AND ((q.state = 'queued' AND q.run_at <= clock_timestamp())
					OR (q.state = 'running' AND q.lease_until <= clock_timestamp()))
				AND (q.order_key = '' OR NOT EXISTS (SELECT 1 FROM queue_items e WHERE e.queue = q.queue
					AND e.order_key <> '' AND e.order_key = q.order_key AND e.seq < q.seq AND e.state <> 'failed'))
			ORDER BY q.seq LIMIT $2 FOR UPDATE SKIP LOCKED),
		claimed AS (
			UPDATE queue_items q SET state = 'running', attempts = q.attempts + 1, leased_by = $3,
				lease_until = `+dbNow+` + $4 * interval '1 millisecond', updated_at = `+dbNow+`
			FROM due WHERE q.seq = due.seq RETURNING q.*)
		SELECT `+queueCols+` FROM claimed ORDER BY seq`, queue, n, worker, lease.Milliseconds()))
		return err
	})
	if err != nil {
		return nil, fail("claim queue items", err)
	}
	return out, nil
}

// heldItem is the condition that the item ($1 queue, $2 id, $3 workspace) is still the worker's ($4).
const heldItem = `queue = $1 AND id = $2 AND workspace_id = $3 AND state = 'running' AND leased_by = $4`

// FinishItem deletes a done item, only while worker holds it. The commit does not wait for the log to
// reach the disk: a crash that loses it only makes the item due again once its lease runs out, and
// delivery is at least once anyway; not waiting saves a disk flush per delivered item.
func (s *Store) FinishItem(ctx context.Context, it core.QueueItem, worker string) error {
	return s.inTx(ctx, "finish queue item", func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SET LOCAL synchronous_commit = off`); err != nil {
			return err
		}
		tag, err := tx.Exec(ctx, `DELETE FROM queue_items WHERE `+heldItem, it.Queue, it.ID, it.Workspace, worker)
		switch {
		case err != nil:
			return err
		case tag.RowsAffected() == 0:
			return core.ErrConflict
		}
		return nil
	})
}

// FinishItems deletes the done items worker still holds, one statement per queue (a worker's items are
// all of one) in one transaction whose commit does not wait for the disk (as FinishItem). The statement
// looks each item up by the (queue, id) key, whatever the statistics say: a join against the list of
// items could be planned as a scan of the whole table, which grows with every item finished until vacuum.
func (s *Store) FinishItems(ctx context.Context, items []core.QueueItem, worker string) ([]bool, error) {
	done := make([]bool, len(items))
	if len(items) == 0 {
		return done, nil
	}
	byQueue := map[string][]int{}
	for i, it := range items {
		byQueue[it.Queue] = append(byQueue[it.Queue], i)
	}
	err := s.tx(ctx, func(tx pgx.Tx) error {
		clear(done) // a retry starts again from nothing finished
		if _, err := tx.Exec(ctx, `SET LOCAL synchronous_commit = off`); err != nil {
			return err
		}
		for queue, idx := range byQueue {
			ids, wss := make([]string, len(idx)), make([]string, len(idx))
			for j, i := range idx {
				ids[j], wss[j] = string(items[i].ID), string(items[i].Workspace)
			}
			rows, err := tx.Query(ctx, `DELETE FROM queue_items q WHERE q.queue = $1 AND q.id = ANY($2::text[])
				AND q.workspace_id = ($3::text[])[array_position($2::text[], q.id)] AND q.state = 'running' AND q.leased_by = $4
				RETURNING array_position($2::text[], q.id)`, queue, ids, wss, worker)
			if err != nil {
				return err
			}
			gone, err := pgx.CollectRows(rows, pgx.RowTo[int32])
			if err != nil {
				return err
			}
			for _, n := range gone {
				done[idx[n-1]] = true
			}
		}
		return nil
	})
	if err != nil {
		return nil, fail("finish queue items", err)
	}
	return done, nil
}

// RetryItem records a failed attempt: due again after delay, or kept as failed when that is past its
// give-up time.
func (s *Store) RetryItem(ctx context.Context, it core.QueueItem, worker, msg string, delay time.Duration) (bool, error) {
	var failed bool
	err := s.pool.QueryRow(ctx, `WITH t AS (SELECT `+dbNow+` AS now)
		UPDATE queue_items SET
			state = CASE WHEN t.now + $6::bigint * interval '1 millisecond' > give_up_at THEN 'failed' ELSE 'queued' END,
			last_error = $5, run_at = t.now + $6::bigint * interval '1 millisecond', lease_until = NULL, leased_by = '',
			updated_at = t.now
		FROM t WHERE `+heldItem+` RETURNING state = 'failed'`,
		it.Queue, it.ID, it.Workspace, worker, msg, max(delay, 0).Milliseconds()).Scan(&failed)
	if err == pgx.ErrNoRows {
		err = core.ErrConflict
	}
	return failed, fail("retry queue item", err)
}

// ReleaseItem gives a claimed item back as it was before the claim (shutdown), only while worker holds it.
func (s *Store) ReleaseItem(ctx context.Context, it core.QueueItem, worker string) error {
	return s.jobUpdate(ctx, "release queue item", `UPDATE queue_items SET state = 'queued',
		attempts = greatest(attempts - 1, 0), lease_until = NULL, leased_by = '', updated_at = `+dbNow+`
		WHERE `+heldItem, it.Queue, it.ID, it.Workspace, worker)
}

// FailedItems lists the failed items of kind, of ws or of all when ws is "", most recently failed first.
func (s *Store) FailedItems(ctx context.Context, kind string, ws core.ID) ([]core.QueueItem, error) {
	out, err := collectQueueItems(s.pool.Query(ctx, `SELECT `+queueCols+` FROM queue_items
		WHERE state = 'failed' AND kind = $1 AND ($2 = '' OR workspace_id = $2) ORDER BY updated_at DESC, seq DESC`,
		kind, ws))
	return out, fail("failed queue items", err)
}

// RetryFailedItems requeues failed items of kind with fresh attempts and a fresh give-up time. A given id
// with no failed item of ws is core.ErrNotFound.
func (s *Store) RetryFailedItems(ctx context.Context, kind string, ws, id core.ID) (int, error) {
	tag, err := s.pool.Exec(ctx, `UPDATE queue_items SET state = 'queued', attempts = 0, run_at = `+dbNow+`,
			give_up_at = `+dbNow+` + retry_for_ms * interval '1 millisecond', updated_at = `+dbNow+`
		WHERE state = 'failed' AND kind = $1 AND ($2 = '' OR workspace_id = $2) AND ($3 = '' OR id = $3)`, kind, ws, id)
	if err != nil {
		return 0, fail("retry failed queue items", err)
	}
	if tag.RowsAffected() == 0 && id != "" {
		return 0, fail("retry failed queue items", pgx.ErrNoRows)
	}
	return int(tag.RowsAffected()), nil
}

// QueueStats counts the items of queue by state.
func (s *Store) QueueStats(ctx context.Context, queue string) (core.QueueStats, error) {
	var st core.QueueStats
	// Each count walks a partial index of its state rather than every row of the queue: the insight pool's
	// gauge and the benchmarks ask often, with the queue full.
	err := s.pool.QueryRow(ctx, `SELECT (SELECT count(*) FROM queue_items WHERE queue = $1 AND state <> 'failed'),
		(SELECT count(*) FROM queue_items WHERE state = 'failed' AND queue = $1)`, queue).Scan(&st.Pending, &st.Failed)
	return st, fail("queue stats", err)
}

// PendingQueues lists the queues holding queued or running items of kind (of ws, or of all when ws is ""), sorted.
func (s *Store) PendingQueues(ctx context.Context, kind string, ws core.ID) ([]string, error) {
	rows, err := s.pool.Query(ctx, `SELECT DISTINCT queue FROM queue_items
		WHERE kind = $1 AND state <> 'failed' AND ($2 = '' OR workspace_id = $2) ORDER BY queue`, kind, ws)
	if err != nil {
		return nil, fail("pending queues", err)
	}
	out, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if out == nil {
		out = []string{}
	}
	return out, fail("pending queues", err)
}
