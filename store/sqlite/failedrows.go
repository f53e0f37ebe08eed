package sqlite

import (
	"context"
	"encoding/json"
	"time"

	"github.com/feedbridge/feedbridge/core"
)

// KeepFailedRows sets the run's header and adds the rows whose line it does not keep yet, in one
// transaction.
func (s *Store) KeepFailedRows(ctx context.Context, ws, run core.ID, header []string, rows []core.FailedRow) error {
	h, err := json.Marshal(header)
	if err != nil {
		return s.fail("keep failed rows", err)
	}
	cells := make([][]byte, len(rows))
	for i, r := range rows {
		if cells[i], err = json.Marshal(r.Cells); err != nil {
			return s.fail("keep failed rows", err)
		}
	}
	return s.write(ctx, "keep failed rows", func(tx *wtx) error {
		res, err := tx.ExecContext(ctx, `UPDATE import_runs SET failed_header = ? WHERE workspace_id = ? AND id = ?`, h, ws, run)
		if err := mustChange(res, err); err != nil {
			return err
		}
		for i, r := range rows {
			if _, err := tx.ExecContext(ctx, `INSERT INTO import_failed_rows(run_id, line, workspace_id, reason, cells)
				VALUES (?, ?, ?, ?, ?) ON CONFLICT (run_id, line) DO NOTHING`, run, r.Line, ws, r.Reason, cells[i]); err != nil {
				return err
			}
		}
		return nil
	})
}

// FailedRows reads the run's header, then its rows by line.
func (s *Store) FailedRows(ctx context.Context, ws, run core.ID) (core.FailedRows, error) {
	var (
		out core.FailedRows
		h   string
	)
	if err := s.rq.QueryRowContext(ctx, `SELECT failed_header FROM import_runs WHERE workspace_id = ? AND id = ?`, ws, run).Scan(&h); err != nil {
		return out, s.fail("failed rows", err)
	}
	if err := json.Unmarshal([]byte(h), &out.Header); err != nil {
		return out, s.fail("failed rows", err)
	}
	rows, err := s.rq.QueryContext(ctx, `SELECT line, reason, cells FROM import_failed_rows WHERE run_id = ? AND workspace_id = ?
		ORDER BY line`, run, ws)
	if err != nil {
		return out, s.fail("failed rows", err)
	}
	out.Rows, err = collect(rows, func(sc scanner) (core.FailedRow, error) {
		var (
			r     core.FailedRow
			cells string
		)
		if err := sc.Scan(&r.Line, &r.Reason, &cells); err != nil {
			return r, err
		}
		return r, json.Unmarshal([]byte(cells), &r.Cells)
	})
	return out, s.fail("failed rows", err)
}

// ForgetFailedRows deletes the failed rows of the workspace's runs that started before t.
func (s *Store) ForgetFailedRows(ctx context.Context, ws core.ID, before time.Time) (int, error) {
	var n int64
	err := s.write(ctx, "forget failed rows", func(tx *wtx) error {
		res, err := tx.ExecContext(ctx, `DELETE FROM import_failed_rows WHERE workspace_id = ? AND run_id IN
			(SELECT id FROM import_runs WHERE workspace_id = ? AND started_at < ?)`, ws, ws, ms(before))
		if err != nil {
			return err
		}
		n, err = res.RowsAffected()
		return err
	})
	return int(n), s.fail("forget failed rows", err)
}

// ForgetFailedRowsMentioning deletes the workspace's failed rows that hold text in a cell or the reason.
// Cells are stored as JSON, which keeps an address as it is: it has no character JSON escapes.
func (s *Store) ForgetFailedRowsMentioning(ctx context.Context, ws core.ID, text string) (int, error) {
	var n int64
	err := s.write(ctx, "forget failed rows", func(tx *wtx) error {
		res, err := tx.ExecContext(ctx, `DELETE FROM import_failed_rows WHERE workspace_id = ?
			AND (instr(lower(cells), lower(?)) > 0 OR instr(lower(reason), lower(?)) > 0)`, ws, text, text)
		if err != nil {
			return err
		}
		n, err = res.RowsAffected()
		return err
	})
	return int(n), s.fail("forget failed rows", err)
}
