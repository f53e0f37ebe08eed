package postgres

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/feedbridge/feedbridge/core"
)

const deliveryCols = `id, workspace_id, entry, body, state, attempts, last_error, run_at, lease_until, leased_by,
	created_at, updated_at`

func collectDeliveries(rows pgx.Rows, err error) ([]core.Delivery, error) {
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (core.Delivery, error) {
		var (
			d     core.Delivery
			lease *time.Time
		)
		err := r.Scan(&d.ID, &d.Workspace, &d.Entry, &d.Body, &d.State, &d.Attempts, &d.LastError, &d.RunAt, &lease,
			&d.LeasedBy, &d.CreatedAt, &d.UpdatedAt)
		d.RunAt, d.LeaseUntil, d.CreatedAt, d.UpdatedAt = ms(d.RunAt), fromOpt(lease), ms(d.CreatedAt), ms(d.UpdatedAt)
		return d, err
	})
}

// QueueDelivery stores a delivery as queued, due at once by the database's clock; a missing
// workspace is core.ErrNotFound.
func (s *Store) QueueDelivery(ctx context.Context, d core.Delivery) error {
	_, err := s.pool.Exec(ctx, `INSERT INTO deliveries (`+deliveryCols+`)
		VALUES ($1, $2, $3, $4, 'queued', 0, '', `+dbNow+`, NULL, '', $5, $6)`,
		d.ID, d.Workspace, d.Entry, d.Body, ms(d.CreatedAt), ms(d.UpdatedAt))
	return fail("queue webhook delivery", err)
}

// ClaimDeliveries leases, in one statement, up to n due deliveries of entry to worker, oldest
// first; replicas claiming at once skip each other's rows.
func (s *Store) ClaimDeliveries(ctx context.Context, entry, worker string, n int, lease time.Duration) ([]core.Delivery, error) {
	if n <= 0 {
		return []core.Delivery{}, nil
	}
	out, err := collectDeliveries(s.pool.Query(ctx, `
		WITH due AS (
			SELECT id FROM deliveries WHERE entry = $1
				AND ((state = 'queued' AND run_at <= clock_timestamp()) OR (state = 'running' AND lease_until <= clock_timestamp()))
			ORDER BY created_at, id LIMIT $2 FOR UPDATE SKIP LOCKED),
		claimed AS (
			UPDATE deliveries d SET state = 'running', attempts = d.attempts + 1, leased_by = $3,
				lease_until = `+dbNow+` + $4 * interval '1 millisecond', updated_at = `+dbNow+`
			FROM due WHERE d.id = due.id RETURNING d.*)
		SELECT `+deliveryCols+` FROM claimed ORDER BY created_at, id`, entry, n, worker, lease.Milliseconds()))
	if err != nil {
		return nil, fail("claim webhook deliveries", err)
	}
	return out, nil
}

// FinishDelivery deletes a delivery whose records are written, only while worker holds it.
func (s *Store) FinishDelivery(ctx context.Context, d core.Delivery, worker string) error {
	return s.jobUpdate(ctx, "finish webhook delivery", `DELETE FROM deliveries WHERE `+held, d.ID, d.Workspace, worker)
}

// FailDelivery records a failed attempt: queued again at retryAt, or kept as failed when final.
func (s *Store) FailDelivery(ctx context.Context, d core.Delivery, worker, msg string, retryAt time.Time, final bool) error {
	state := core.JobQueued
	if final {
		state = core.JobFailed
	}
	return s.jobUpdate(ctx, "fail webhook delivery", `UPDATE deliveries SET state = $4, last_error = $5,
		run_at = $6, lease_until = NULL, leased_by = '', updated_at = `+dbNow+` WHERE `+held,
		d.ID, d.Workspace, worker, state, msg, ms(retryAt))
}

// Deliveries lists the kept deliveries of entry in ws, oldest first.
func (s *Store) Deliveries(ctx context.Context, ws core.ID, entry string) ([]core.Delivery, error) {
	out, err := collectDeliveries(s.pool.Query(ctx, `SELECT `+deliveryCols+` FROM deliveries
		WHERE entry = $1 AND workspace_id = $2 ORDER BY created_at, id`, entry, ws))
	return out, fail("webhook deliveries", err)
}
