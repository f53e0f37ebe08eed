package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/feedbridge/feedbridge/core"
)

// UndoImport deletes the unchanged records of an import run in chunks, each its own write.
func (s *Store) UndoImport(ctx context.Context, run core.ID, outbox func(core.ID) *core.Outbox) (core.UndoResult, error) {
	out := core.UndoResult{Run: run, Kept: []core.KeptRecord{}}
	var (
		ws       core.ID
		status   string
		finished sql.NullInt64
	)
	err := s.rq.QueryRowContext(ctx, `SELECT workspace_id, status, finished_at FROM import_runs WHERE id = ?`, run).
		Scan(&ws, &status, &finished)
	if errors.Is(err, sql.ErrNoRows) {
		return out, fmt.Errorf("sqlite: undo import: %w", core.ErrNotFound)
	}
	if err != nil {
		return out, s.fail("undo import", err)
	}
	if status == core.ImportRunning || !finished.Valid {
		return out, fmt.Errorf("sqlite: undo import: the run is still running: %w", core.ErrConflict)
	}
	ob := outbox(ws)
	for {
		rows, err := s.r.QueryContext(ctx, `SELECT id FROM records WHERE import_run_id = ? AND workspace_id = ? AND updated_at <= ? AND version = 0
			LIMIT ?`, run, ws, finished.Int64, core.UndoChunk)
		if err != nil {
			return out, s.fail("undo import", err)
		}
		ids, err := collect(rows, func(sc scanner) (core.ID, error) {
			var id core.ID
			return id, sc.Scan(&id)
		})
		if err != nil {
			return out, s.fail("undo import", err)
		}
		if len(ids) == 0 {
			break
		}
		err = s.write(ctx, "undo import", func(tx *wtx) error {
			// A record changed since the read stays.
			args := append([]any{finished.Int64}, anyIDs(ids)...)
			rows, err := tx.QueryContext(tx.ctx, `SELECT id FROM records WHERE updated_at <= ? AND version = 0 AND id IN (`+marks(len(ids))+`)`, args...)
			if err != nil {
				return err
			}
			still, err := collect(rows, func(sc scanner) (core.ID, error) {
				var id core.ID
				return id, sc.Scan(&id)
			})
			if err != nil {
				return err
			}
			for _, id := range still {
				if err := s.deletedEvent(tx, ws, id, ob); err != nil {
					return err
				}
			}
			n, err := deleteRecords(tx, ws, still)
			out.Deleted += n
			return err
		})
		if err != nil {
			return out, fmt.Errorf("sqlite: undo import: %w", err)
		}
	}
	rows, err := s.r.QueryContext(ctx, `SELECT id, updated_at FROM records WHERE import_run_id = ? AND workspace_id = ?
		ORDER BY id`, run, ws)
	if err != nil {
		return out, s.fail("undo import", err)
	}
	kept, err := collect(rows, func(sc scanner) (core.KeptRecord, error) {
		var (
			k  core.KeptRecord
			at int64
		)
		err := sc.Scan(&k.ID, &at)
		k.Reason = core.KeptChanged(fromMS(at))
		return k, err
	})
	if err != nil {
		return out, s.fail("undo import", err)
	}
	out.Kept = kept
	return out, nil
}

// deleteRecords deletes the records ids of ws with everything hanging off them: insights, insight jobs,
// tags and idempotency entries; the records' own delete triggers take their full-text entries (indexed or
// still queued) and their companies' counts. It returns how many records it deleted. Every deletion of
// records goes through here, so a new table that points at records is one more statement below.
func deleteRecords(tx *wtx, ws core.ID, ids []core.ID) (int, error) {
	if len(ids) == 0 {
		return 0, nil
	}
	in := marks(len(ids))
	args := append([]any{ws}, anyIDs(ids)...)
	for _, q := range []string{
		`DELETE FROM insights WHERE workspace_id = ? AND record_id IN (` + in + `)`,
		`DELETE FROM queue_items WHERE queue = '` + core.InsightQueue + `' AND workspace_id = ? AND order_key <> '' AND order_key IN (` + in + `)`,
		`DELETE FROM idempotency_keys WHERE workspace_id = ? AND record_id IN (` + in + `)`,
		`DELETE FROM record_history WHERE record_id IN (SELECT id FROM records WHERE workspace_id = ? AND id IN (` + in + `))`,
		`DELETE FROM record_tags WHERE record_id IN (SELECT id FROM records WHERE workspace_id = ? AND id IN (` + in + `))`,
	} {
		if _, err := tx.ExecContext(tx.ctx, q, args...); err != nil {
			return 0, err
		}
	}
	res, err := tx.ExecContext(tx.ctx, `DELETE FROM records WHERE workspace_id = ? AND id IN (`+in+`)`, args...)
	if err != nil {
		return 0, err
	}
	n, err := res.RowsAffected()
	return int(n), err
}

func anyIDs(ids []core.ID) []any {
	out := make([]any, len(ids))
	for i, id := range ids {
		out[i] = id
	}
	return out
}
