package sqlite

import (
	"context"
	"database/sql"
	"errors"

	"github.com/feedbridge/feedbridge/core"
)

func (s *Store) Checkpoint(ctx context.Context, ws core.ID, name string) (string, error) {
	var v string
	err := s.rq.QueryRowContext(ctx, `SELECT value FROM checkpoints WHERE workspace_id = ? AND name = ?`, ws, name).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	return v, s.fail("checkpoint", err)
}

func (s *Store) SetCheckpoint(ctx context.Context, ws core.ID, c core.Checkpoint) error {
	return s.write(ctx, "set checkpoint", func(tx *wtx) error {
		return putCheckpoint(ctx, tx, ws, c, s.nowMS())
	})
}

func putCheckpoint(ctx context.Context, tx *wtx, ws core.ID, c core.Checkpoint, now int64) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO checkpoints(workspace_id, name, value, updated_at) VALUES (?, ?, ?, ?)
		ON CONFLICT (workspace_id, name) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`,
		ws, c.Name, c.Value, now)
	return err
}

func (s *Store) PutConnectorStatus(ctx context.Context, st core.ConnectorStatus) error {
	return s.write(ctx, "put connector status", func(tx *wtx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO connector_statuses(workspace_id, name, kind, state, last_success_at, last_error,
			refused, last_refused, last_refused_at, updated_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (workspace_id, name) DO UPDATE SET kind = excluded.kind,
			state = excluded.state, last_success_at = excluded.last_success_at, last_error = excluded.last_error,
			refused = connector_statuses.refused + excluded.refused,
			last_refused = CASE WHEN `+newerRefusal+` THEN excluded.last_refused ELSE connector_statuses.last_refused END,
			last_refused_at = CASE WHEN `+newerRefusal+` THEN excluded.last_refused_at ELSE connector_statuses.last_refused_at END,
			updated_at = excluded.updated_at`,
			st.Workspace, st.Name, st.Kind, st.State, optMS(st.LastSuccessAt), st.LastError, st.Refused, st.LastRefused,
			optMS(st.LastRefusedAt), ms(st.UpdatedAt))
		return err
	})
}

// newerRefusal holds when the written refusal is newer than the stored one (or there is none stored).
const newerRefusal = `excluded.last_refused_at IS NOT NULL AND (connector_statuses.last_refused_at IS NULL
			OR excluded.last_refused_at >= connector_statuses.last_refused_at)`

func (s *Store) ConnectorStatuses(ctx context.Context, ws core.ID) ([]core.ConnectorStatus, error) {
	rows, err := s.rq.QueryContext(ctx, `SELECT workspace_id, name, kind, state, last_success_at, last_error, refused,
		last_refused, last_refused_at, updated_at FROM connector_statuses WHERE workspace_id = ? ORDER BY name`, ws)
	if err != nil {
		return nil, s.fail("connector statuses", err)
	}
	out, err := collect(rows, func(sc scanner) (core.ConnectorStatus, error) {
		var (
			st               core.ConnectorStatus
			success, refused sql.NullInt64
			updated          int64
		)
		err := sc.Scan(&st.Workspace, &st.Name, &st.Kind, &st.State, &success, &st.LastError, &st.Refused,
			&st.LastRefused, &refused, &updated)
		st.LastSuccessAt, st.LastRefusedAt, st.UpdatedAt = fromOptMS(success), fromOptMS(refused), fromMS(updated)
		return st, err
	})
	return out, s.fail("connector statuses", err)
}

// PutImportRun inserts a run or updates it by id; a run id of another workspace is not touched (not found).
func (s *Store) PutImportRun(ctx context.Context, run core.ImportRun, events ...core.QueueItem) error {
	err := s.write(ctx, "put import run", func(tx *wtx) error {
		res, err := tx.ExecContext(ctx, `INSERT INTO import_runs(id, workspace_id, connector, file, status, rows, created,
			duplicates, failed, error, started_at, finished_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT (id) DO UPDATE SET connector = excluded.connector, file = excluded.file, status = excluded.status,
			rows = excluded.rows, created = excluded.created, duplicates = excluded.duplicates, failed = excluded.failed,
			error = excluded.error, started_at = excluded.started_at, finished_at = excluded.finished_at
			WHERE import_runs.workspace_id = excluded.workspace_id`,
			run.ID, run.Workspace, run.Connector, run.File, run.Status, run.Rows, run.Created, run.Duplicates, run.Failed,
			run.Error, ms(run.StartedAt), optMS(run.FinishedAt))
		if err := mustChange(res, err); err != nil {
			return err
		}
		return s.enqueue(tx, events)
	})
	if err == nil && run.Created > 0 && !run.FinishedAt.IsZero() {
		select {
		case s.restat <- struct{}{}:
		default:
		}
	}
	return err
}

const importRunCols = `id, workspace_id, connector, file, status, rows, created, duplicates, failed, error, started_at, finished_at`

func scanImportRun(sc scanner) (core.ImportRun, error) {
	var (
		r        core.ImportRun
		started  int64
		finished sql.NullInt64
	)
	err := sc.Scan(&r.ID, &r.Workspace, &r.Connector, &r.File, &r.Status, &r.Rows, &r.Created, &r.Duplicates, &r.Failed,
		&r.Error, &started, &finished)
	r.StartedAt, r.FinishedAt = fromMS(started), fromOptMS(finished)
	return r, err
}

func (s *Store) ImportRuns(ctx context.Context, ws core.ID) ([]core.ImportRun, error) {
	rows, err := s.rq.QueryContext(ctx, `SELECT `+importRunCols+` FROM import_runs WHERE workspace_id = ?
		ORDER BY started_at DESC, id DESC`, ws)
	if err != nil {
		return nil, s.fail("import runs", err)
	}
	out, err := collect(rows, scanImportRun)
	return out, s.fail("import runs", err)
}

func (s *Store) ImportRun(ctx context.Context, ws, id core.ID) (core.ImportRun, error) {
	r, err := scanImportRun(s.rq.QueryRowContext(ctx, `SELECT `+importRunCols+` FROM import_runs WHERE workspace_id = ? AND id = ?`, ws, id))
	return r, s.fail("import run", err)
}
