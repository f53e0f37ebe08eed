package postgres

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/feedbridge/feedbridge/core"
)

// Checkpoint reads a connector's state; "" when none was written.
func (s *Store) Checkpoint(ctx context.Context, ws core.ID, name string) (string, error) {
	var v string
	err := s.pool.QueryRow(ctx, `SELECT value FROM checkpoints WHERE workspace_id = $1 AND name = $2`, ws, name).Scan(&v)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", nil
	}
	return v, fail("checkpoint", err)
}

// SetCheckpoint writes a connector's state outside a record.
func (s *Store) SetCheckpoint(ctx context.Context, ws core.ID, c core.Checkpoint) error {
	return s.inTx(ctx, "set checkpoint", func(tx pgx.Tx) error { return putCheckpoint(ctx, tx, ws, c) })
}

func putCheckpoint(ctx context.Context, tx pgx.Tx, ws core.ID, c core.Checkpoint) error {
	_, err := tx.Exec(ctx, `
		INSERT INTO checkpoints (workspace_id, name, value, updated_at) VALUES ($1, $2, $3, `+txNow+`)
		ON CONFLICT (workspace_id, name) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`,
		ws, c.Name, c.Value)
	return err
}

// PutConnectorStatus inserts or replaces a connector's status.
func (s *Store) PutConnectorStatus(ctx context.Context, st core.ConnectorStatus) error {
	_, err := s.pool.Exec(ctx, `
		INSERT INTO connector_statuses (workspace_id, name, kind, state, last_success_at, last_error, refused,
			last_refused, last_refused_at, updated_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
		ON CONFLICT (workspace_id, name) DO UPDATE SET kind = excluded.kind, state = excluded.state,
			last_success_at = excluded.last_success_at, last_error = excluded.last_error,
			refused = connector_statuses.refused + excluded.refused,
			last_refused = CASE WHEN `+newerRefusal+` THEN excluded.last_refused ELSE connector_statuses.last_refused END,
			last_refused_at = CASE WHEN `+newerRefusal+` THEN excluded.last_refused_at ELSE connector_statuses.last_refused_at END,
			updated_at = excluded.updated_at`,
		st.Workspace, st.Name, st.Kind, st.State, optTime(st.LastSuccessAt), st.LastError, st.Refused, st.LastRefused,
		optTime(st.LastRefusedAt), ms(st.UpdatedAt))
	return fail("put connector status", err)
}

// newerRefusal holds when the written refusal is newer than the stored one (or there is none stored).
const newerRefusal = `excluded.last_refused_at IS NOT NULL AND (connector_statuses.last_refused_at IS NULL
			OR excluded.last_refused_at >= connector_statuses.last_refused_at)`

// ConnectorStatuses lists a workspace's connector states by name.
func (s *Store) ConnectorStatuses(ctx context.Context, ws core.ID) ([]core.ConnectorStatus, error) {
	rows, err := s.pool.Query(ctx, `
		SELECT workspace_id, name, kind, state, last_success_at, last_error, refused, last_refused, last_refused_at,
			updated_at FROM connector_statuses WHERE workspace_id = $1 ORDER BY name`, ws)
	if err != nil {
		return nil, fail("connector statuses", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (core.ConnectorStatus, error) {
		var (
			st            core.ConnectorStatus
			last, refused *time.Time
		)
		err := r.Scan(&st.Workspace, &st.Name, &st.Kind, &st.State, &last, &st.LastError, &st.Refused, &st.LastRefused,
			&refused, &st.UpdatedAt)
		st.LastSuccessAt, st.LastRefusedAt, st.UpdatedAt = fromOpt(last), fromOpt(refused), ms(st.UpdatedAt)
		return st, err
	})
	return out, fail("connector statuses", err)
}

const runCols = `id, workspace_id, connector, file, status, rows, created, duplicates, failed, error, started_at, finished_at`

func scanRun(row pgx.Row) (core.ImportRun, error) {
	var (
		r        core.ImportRun
		finished *time.Time
	)
	err := row.Scan(&r.ID, &r.Workspace, &r.Connector, &r.File, &r.Status, &r.Rows, &r.Created, &r.Duplicates,
		&r.Failed, &r.Error, &r.StartedAt, &finished)
	r.StartedAt, r.FinishedAt = ms(r.StartedAt), fromOpt(finished)
	return r, err
}

// PutImportRun inserts a run or updates it by id; a run of another workspace is left alone (ErrNotFound).
func (s *Store) PutImportRun(ctx context.Context, run core.ImportRun, events ...core.QueueItem) error {
	if len(events) > 0 {
		return s.inTx(ctx, "put import run", func(tx pgx.Tx) error {
			if err := putImportRun(ctx, tx, run); err != nil {
				return err
			}
			return enqueue(ctx, tx, events)
		})
	}
	return fail("put import run", putImportRun(ctx, s.pool, run))
}

// putImportRun writes run with db; a run of another workspace is pgx.ErrNoRows.
func putImportRun(ctx context.Context, db execer, run core.ImportRun) error {
	tag, err := db.Exec(ctx, `
		INSERT INTO import_runs (`+runCols+`) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)
		ON CONFLICT (id) DO UPDATE SET connector = excluded.connector, file = excluded.file, status = excluded.status,
			rows = excluded.rows, created = excluded.created, duplicates = excluded.duplicates, failed = excluded.failed,
			error = excluded.error, started_at = excluded.started_at, finished_at = excluded.finished_at
		WHERE import_runs.workspace_id = excluded.workspace_id`,
		run.ID, run.Workspace, run.Connector, run.File, run.Status, run.Rows, run.Created, run.Duplicates,
		run.Failed, run.Error, ms(run.StartedAt), optTime(run.FinishedAt))
	if err == nil && tag.RowsAffected() == 0 {
		err = pgx.ErrNoRows
	}
	return err
}

// ImportRuns lists a workspace's runs, newest first.
func (s *Store) ImportRuns(ctx context.Context, ws core.ID) ([]core.ImportRun, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+runCols+` FROM import_runs WHERE workspace_id = $1
		ORDER BY started_at DESC, id DESC`, ws)
	if err != nil {
		return nil, fail("import runs", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (core.ImportRun, error) { return scanRun(r) })
	return out, fail("import runs", err)
}

// ImportRun returns one run of the workspace.
func (s *Store) ImportRun(ctx context.Context, ws core.ID, id core.ID) (core.ImportRun, error) {
	r, err := scanRun(s.pool.QueryRow(ctx, `SELECT `+runCols+` FROM import_runs WHERE workspace_id = $1 AND id = $2`, ws, id))
	return r, fail("import run", err)
}
