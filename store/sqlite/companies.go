package sqlite

import (
	"context"
	"database/sql"
	"errors"

	"github.com/feedbridge/feedbridge/core"
)

// companyCols are read by scanCompany. created_at is kept by a trigger (migration 0012); feedback_count by
// triggers for deletions and moves, and for creates by foldCounts, which a read of it must call first
// (migration 0024).
const companyCols = `id, name, domain, feedback_count, created_at`

// uncounted is, per company, how many of its records a create queued uncounted (records_fts_pending,
// counted = 0) and no fold has added to its count yet. The queue is read first: it is short, since the
// indexer folds before it drains it, while the records with a company may be most of the table.
const uncounted = `SELECT r.company_id AS id, count(*) AS n FROM records_fts_pending p CROSS JOIN records r ON r.seq = p.seq
	WHERE p.counted = 0 AND r.company_id IS NOT NULL GROUP BY r.company_id`

// foldCounts adds the records created since the last fold to their companies' counts and marks them
// counted.
func foldCounts(tx *wtx) error {
	if _, err := tx.ExecContext(tx.ctx, `UPDATE companies SET feedback_count = feedback_count + d.n
		FROM (`+uncounted+`) AS d WHERE companies.id = d.id`); err != nil {
		return err
	}
	_, err := tx.ExecContext(tx.ctx, `UPDATE records_fts_pending SET counted = 1 WHERE counted = 0`)
	return err
}

// readCompanies runs read, which reads the companies' counts from the table named by from, in one
// snapshot in which every count is whole. With no record uncounted that is the companies table on a
// reader; otherwise the writer folds and reads in the same transaction. A store that cannot fold (read-only,
// or whose writes fail, on a full disk say) reads a view that adds the uncounted records instead, in the
// order of no index.
func (s *Store) readCompanies(ctx context.Context, read func(q queryer, from string) error) error {
	done, err := s.readCompaniesAt(ctx, read, s.role != ModeReadOnly)
	if done || err != nil {
		return err
	}
	var readErr error
	err = s.write(ctx, "count companies", func(t *wtx) error {
		if err := foldCounts(t); err != nil {
			return err
		}
		// A read that finds nothing keeps the fold.
		if readErr = read(t, `companies`); errors.Is(readErr, sql.ErrNoRows) {
			return nil
		}
		return readErr
	})
	if err == nil {
		return readErr
	}
	if readErr != nil || ctx.Err() != nil {
		return err
	}
	_, err = s.readCompaniesAt(ctx, read, false)
	return err
}

// readCompaniesAt runs read on a reader, from the companies table when no record is uncounted, else from
// the view that counts them, unless fold is set: then it reads nothing (done is false) and leaves the fold
// to its caller.
func (s *Store) readCompaniesAt(ctx context.Context, read func(q queryer, from string) error, fold bool) (done bool, err error) {
	tx, err := s.r.BeginTx(ctx, nil)
	if err != nil {
		return false, err
	}
	defer tx.Rollback()
	var stale bool
	if err := tx.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM records_fts_pending WHERE counted = 0)`).Scan(&stale); err != nil {
		return false, err
	}
	switch {
	case !stale:
		return true, read(tx, `companies`)
	case fold:
		return false, nil
	}
	return true, read(tx, `(SELECT c.id, c.workspace_id, c.name, c.name_key, c.domain, c.created_at,
		c.feedback_count + coalesce(d.n, 0) AS feedback_count
		FROM companies c LEFT JOIN (`+uncounted+`) AS d ON d.id = c.id) AS companies`)
}

func scanCompany(sc scanner) (core.Company, error) {
	var (
		c  core.Company
		at int64
	)
	err := sc.Scan(&c.ID, &c.Name, &c.Domain, &c.FeedbackCount, &at)
	c.CreatedAt = fromMS(at)
	return c, err
}

// CompanyList reads one page in the order of the companies_by_count index.
func (s *Store) CompanyList(ctx context.Context, ws core.ID, q core.CompanyQuery) ([]core.Company, error) {
	var out []core.Company
	err := s.readCompanies(ctx, func(rq queryer, from string) error {
		query := `SELECT ` + companyCols + ` FROM ` + from + ` WHERE workspace_id = ?`
		args := []any{ws}
		if a := q.After; a != nil {
			query += ` AND (feedback_count < ? OR (feedback_count = ? AND id > ?))`
			args = append(args, a.FeedbackCount, a.FeedbackCount, a.ID)
		}
		rows, err := rq.QueryContext(ctx, query+` ORDER BY feedback_count DESC, id LIMIT ?`, append(args, q.Limit)...)
		if err != nil {
			return err
		}
		out, err = collect(rows, scanCompany)
		return err
	})
	return out, s.fail("companies", err)
}

// Company reads one company of ws.
func (s *Store) Company(ctx context.Context, ws, id core.ID) (core.Company, error) {
	var c core.Company
	err := s.readCompanies(ctx, func(rq queryer, from string) (err error) {
		c, err = scanCompany(rq.QueryRowContext(ctx, `SELECT `+companyCols+` FROM `+from+` WHERE workspace_id = ? AND id = ?`, ws, id))
		return err
	})
	return c, s.fail("company", err)
}
