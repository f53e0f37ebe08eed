package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"time"

	"github.com/feedbridge/feedbridge/core"
)

const deliveryCols = `id, workspace_id, entry, body, state, attempts, last_error, run_at, lease_until, leased_by, created_at, updated_at`

func scanDelivery(sc scanner) (core.Delivery, error) {
	var (
		d                       core.Delivery
		runAt, created, updated int64
		lease                   sql.NullInt64
	)
	err := sc.Scan(&d.ID, &d.Workspace, &d.Entry, &d.Body, &d.State, &d.Attempts, &d.LastError, &runAt, &lease,
		&d.LeasedBy, &created, &updated)
	d.RunAt, d.LeaseUntil, d.CreatedAt, d.UpdatedAt = fromMS(runAt), fromOptMS(lease), fromMS(created), fromMS(updated)
	return d, err
}

// QueueDelivery stores a delivery as queued; a missing workspace is core.ErrNotFound.
func (s *Store) QueueDelivery(ctx context.Context, d core.Delivery) error {
	return s.write(ctx, "queue webhook delivery", func(tx *wtx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO deliveries (`+deliveryCols+`)
			VALUES (?, ?, ?, ?, 'queued', 0, '', ?, NULL, '', ?, ?)`,
			d.ID, d.Workspace, d.Entry, d.Body, ms(d.RunAt), ms(d.CreatedAt), ms(d.UpdatedAt))
		return err
	})
}

// ClaimDeliveries leases up to n due deliveries of entry to worker, oldest first. The single writer
// makes the claim atomic.
func (s *Store) ClaimDeliveries(ctx context.Context, entry, worker string, n int, lease time.Duration) ([]core.Delivery, error) {
	if n <= 0 {
		return []core.Delivery{}, nil
	}
	var out []core.Delivery
	err := s.write(ctx, "claim webhook deliveries", func(tx *wtx) error {
		now := s.nowMS()
		ids, err := column(tx.QueryContext(ctx, `SELECT id FROM deliveries WHERE entry = ?
			AND ((state = 'queued' AND run_at <= ?) OR (state = 'running' AND lease_until <= ?))
			ORDER BY created_at, id LIMIT ?`, entry, now, now, n))
		if err != nil || len(ids) == 0 {
			out = []core.Delivery{}
			return err
		}
		args := []any{now + lease.Milliseconds(), worker, now}
		for _, id := range ids {
			args = append(args, id)
		}
		in := strings.TrimSuffix(strings.Repeat("?, ", len(ids)), ", ")
		if _, err := tx.ExecContext(ctx, `UPDATE deliveries SET state = 'running', attempts = attempts + 1,
			lease_until = ?, leased_by = ?, updated_at = ? WHERE id IN (`+in+`)`, args...); err != nil {
			return err
		}
		rows, err := tx.QueryContext(ctx, `SELECT `+deliveryCols+` FROM deliveries WHERE id IN (`+in+`)
			ORDER BY created_at, id`, args[3:]...)
		if err != nil {
			return err
		}
		out, err = collect(rows, scanDelivery)
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// heldDelivery is the condition that the delivery is still the worker's: running and leased to it.
const heldDelivery = `id = ? AND workspace_id = ? AND state = 'running' AND leased_by = ?`

// FinishDelivery deletes a delivery whose records are written, only while worker holds it.
func (s *Store) FinishDelivery(ctx context.Context, d core.Delivery, worker string) error {
	return s.write(ctx, "finish webhook delivery", func(tx *wtx) error {
		return notHeld(tx.ExecContext(ctx, `DELETE FROM deliveries WHERE `+heldDelivery, d.ID, d.Workspace, worker))
	})
}

// FailDelivery records a failed attempt: queued again at retryAt, or kept as failed when final.
func (s *Store) FailDelivery(ctx context.Context, d core.Delivery, worker, msg string, retryAt time.Time, final bool) error {
	state := core.JobQueued
	if final {
		state = core.JobFailed
	}
	return s.write(ctx, "fail webhook delivery", func(tx *wtx) error {
		return notHeld(tx.ExecContext(ctx, `UPDATE deliveries SET state = ?, last_error = ?, run_at = ?,
			lease_until = NULL, leased_by = '', updated_at = ? WHERE `+heldDelivery,
			state, msg, ms(retryAt), s.nowMS(), d.ID, d.Workspace, worker))
	})
}

// notHeld turns "no row matched" into core.ErrConflict: the worker's lease ran out and another took it.
func notHeld(res sql.Result, err error) error {
	err = mustChange(res, err)
	if errors.Is(err, sql.ErrNoRows) {
		return core.ErrConflict
	}
	return err
}

// Deliveries lists the kept deliveries of entry in ws, oldest first.
func (s *Store) Deliveries(ctx context.Context, ws core.ID, entry string) ([]core.Delivery, error) {
	rows, err := s.rq.QueryContext(ctx, `SELECT `+deliveryCols+` FROM deliveries
		WHERE entry = ? AND workspace_id = ? ORDER BY created_at, id`, entry, ws)
	if err != nil {
		return nil, s.fail("webhook deliveries", err)
	}
	out, err := collect(rows, scanDelivery)
	return out, s.fail("webhook deliveries", err)
}
