package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/feedbridge/feedbridge/core"
)

// UndoImport deletes the unchanged records of an import run in chunks, each its own transaction.
func (s *Store) UndoImport(ctx context.Context, run core.ID, outbox func(core.ID) *core.Outbox) (core.UndoResult, error) {
	out := core.UndoResult{Run: run, Kept: []core.KeptRecord{}}
	var (
		ws       core.ID
		status   string
		finished *time.Time
	)
	err := s.pool.QueryRow(ctx, `SELECT workspace_id, status, finished_at FROM import_runs WHERE id = $1`, run).
		Scan(&ws, &status, &finished)
	if errors.Is(err, pgx.ErrNoRows) {
		return out, fmt.Errorf("postgres: undo import: %w", core.ErrNotFound)
	}
	if err != nil {
		return out, fail("undo import", err)
	}
	if status == core.ImportRunning || finished == nil {
		return out, fmt.Errorf("postgres: undo import: the run is still running: %w", core.ErrConflict)
	}
	ob := outbox(ws)
	for {
		var n int
		err := s.inTx(ctx, "undo import", func(tx pgx.Tx) error {
			rows, err := tx.Query(ctx, `SELECT id FROM records WHERE workspace_id = $1 AND import_run_id = $2 AND updated_at <= $3 AND version = 0
				ORDER BY id LIMIT $4 FOR UPDATE`, ws, run, *finished, core.UndoChunk)
			if err != nil {
				return err
			}
			ids, err := pgx.CollectRows(rows, pgx.RowTo[string])
			if err != nil {
				return err
			}
			for _, id := range ids {
				if err := s.deletedEvent(ctx, tx, ws, core.ID(id), ob); err != nil {
					return err
				}
			}
			n, err = deleteRecords(ctx, tx, ws, ids)
			return err
		})
		if err != nil {
			return out, err
		}
		if n == 0 {
			break
		}
		out.Deleted += n
	}
	rows, err := s.pool.Query(ctx, `SELECT id, updated_at FROM records WHERE workspace_id = $1 AND import_run_id = $2 ORDER BY id`, ws, run)
	if err != nil {
		return out, fail("undo import", err)
	}
	kept, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (core.KeptRecord, error) {
		var (
			k  core.KeptRecord
			at time.Time
		)
		err := row.Scan(&k.ID, &at)
		k.Reason = core.KeptChanged(at)
		return k, err
	})
	if err != nil {
		return out, fail("undo import", err)
	}
	out.Kept = kept
	return out, nil
}

// deleteRecords deletes the records ids of ws with everything hanging off them: insights, insight jobs and
// idempotency entries (tags live in the record's row, its search text in its search_text column), and the
// companies' counts follow by trigger. It returns how many records it deleted. Every deletion of records
// goes through here, so a new table that points at records is one more statement below.
func deleteRecords(ctx context.Context, tx pgx.Tx, ws core.ID, ids []string) (int, error) {
	if len(ids) == 0 {
		return 0, nil
	}
	b := &pgx.Batch{}
	b.Queue(`DELETE FROM insights WHERE workspace_id = $1 AND record_id = ANY($2::text[])`, ws, ids)
	b.Queue(`DELETE FROM queue_items WHERE queue = '`+core.InsightQueue+`' AND order_key <> '' AND order_key = ANY($2::text[]) AND workspace_id = $1`, ws, ids)
	b.Queue(`DELETE FROM idempotency_keys WHERE workspace_id = $1 AND record_id = ANY($2::text[])`, ws, ids)
	var n int
	b.Queue(`DELETE FROM records WHERE workspace_id = $1 AND id = ANY($2::text[])`, ws, ids).Exec(func(tag pgconn.CommandTag) error {
		n = int(tag.RowsAffected())
		return nil
	})
	// The history goes after the rows (it has no foreign key to cascade from them): a status move that
	// committed its entry while this waited on a row's lock wrote it before this statement starts.
	b.Queue(`DELETE FROM record_history WHERE workspace_id = $1 AND record_id = ANY($2::text[])`, ws, ids)
	err := tx.SendBatch(ctx, b).Close()
	return n, err
}

// importRun is a record's import_run_id: NULL when no import wrote it.
func importRun(id core.ID) any {
	if id == "" {
		return nil
	}
	return string(id)
}
