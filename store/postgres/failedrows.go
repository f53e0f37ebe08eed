package postgres

import (
	"context"
	"encoding/json"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/feedbridge/feedbridge/core"
)

// KeepFailedRows sets the run's header and adds the rows whose line it does not keep yet, in one
// transaction and one insert.
func (s *Store) KeepFailedRows(ctx context.Context, ws, run core.ID, header []string, rows []core.FailedRow) error {
	h, err := json.Marshal(header)
	if err != nil {
		return fail("keep failed rows", err)
	}
	lines, reasons, cells := make([]int32, len(rows)), make([]string, len(rows)), make([]string, len(rows))
	for i, r := range rows {
		c, err := json.Marshal(r.Cells)
		if err != nil {
			return fail("keep failed rows", err)
		}
		lines[i], reasons[i], cells[i] = int32(r.Line), r.Reason, string(c)
	}
	return s.inTx(ctx, "keep failed rows", func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `UPDATE import_runs SET failed_header = $1 WHERE workspace_id = $2 AND id = $3`, string(h), ws, run)
		if err != nil {
			return err
		}
		if tag.RowsAffected() == 0 {
			return pgx.ErrNoRows
		}
		_, err = tx.Exec(ctx, `INSERT INTO import_failed_rows (run_id, line, workspace_id, reason, cells)
			SELECT $1, t.line, $2, t.reason, t.cells FROM unnest($3::integer[], $4::text[], $5::text[]) AS t(line, reason, cells)
			ON CONFLICT (run_id, line) DO NOTHING`, run, ws, lines, reasons, cells)
		return err
	})
}

// FailedRows reads the run's header, then its rows by line.
func (s *Store) FailedRows(ctx context.Context, ws, run core.ID) (core.FailedRows, error) {
	var (
		out core.FailedRows
		h   string
	)
	if err := s.pool.QueryRow(ctx, `SELECT failed_header FROM import_runs WHERE workspace_id = $1 AND id = $2`, ws, run).Scan(&h); err != nil {
		return out, fail("failed rows", err)
	}
	if err := json.Unmarshal([]byte(h), &out.Header); err != nil {
		return out, fail("failed rows", err)
	}
	rows, err := s.pool.Query(ctx, `SELECT line, reason, cells FROM import_failed_rows WHERE run_id = $1 AND workspace_id = $2
		ORDER BY line`, run, ws)
	if err != nil {
		return out, fail("failed rows", err)
	}
	out.Rows, err = pgx.CollectRows(rows, func(row pgx.CollectableRow) (core.FailedRow, error) {
		var (
			r     core.FailedRow
			cells string
		)
		if err := row.Scan(&r.Line, &r.Reason, &cells); err != nil {
			return r, err
		}
		return r, json.Unmarshal([]byte(cells), &r.Cells)
	})
	return out, fail("failed rows", err)
}

// ForgetFailedRows deletes the failed rows of the workspace's runs that started before t.
func (s *Store) ForgetFailedRows(ctx context.Context, ws core.ID, before time.Time) (int, error) {
	tag, err := s.pool.Exec(ctx, `DELETE FROM import_failed_rows WHERE workspace_id = $1 AND run_id IN
		(SELECT id FROM import_runs WHERE workspace_id = $1 AND started_at < $2)`, ws, before)
	if err != nil {
		return 0, fail("forget failed rows", err)
	}
	return int(tag.RowsAffected()), nil
}

// ForgetFailedRowsMentioning deletes the workspace's failed rows that hold text in a cell or the reason.
// Cells are stored as JSON, which keeps an address as it is: it has no character JSON escapes.
func (s *Store) ForgetFailedRowsMentioning(ctx context.Context, ws core.ID, text string) (int, error) {
	tag, err := s.pool.Exec(ctx, `DELETE FROM import_failed_rows WHERE workspace_id = $1
		AND (strpos(lower(cells), lower($2)) > 0 OR strpos(lower(reason), lower($2)) > 0)`, ws, text)
	if err != nil {
		return 0, fail("forget failed rows", err)
	}
	return int(tag.RowsAffected()), nil
}
