package postgres

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/feedbridge/feedbridge/core"
)

// companyCols are read in core.Company's field order. feedback_count and created_at are kept by triggers
// (migration 0009).
const companyCols = `id, name, domain, feedback_count, created_at`

// CompanyList reads one page in the order of the companies_by_count index.
func (s *Store) CompanyList(ctx context.Context, ws core.ID, q core.CompanyQuery) ([]core.Company, error) {
	query := `SELECT ` + companyCols + ` FROM companies WHERE workspace_id = $1`
	args := []any{ws, q.Limit}
	if a := q.After; a != nil {
		query += ` AND (feedback_count < $3 OR (feedback_count = $3 AND id > $4))`
		args = append(args, a.FeedbackCount, a.ID)
	}
	rows, err := s.pool.Query(ctx, query+` ORDER BY feedback_count DESC, id LIMIT $2`, args...)
	if err != nil {
		return nil, fail("companies", err)
	}
	out, err := pgx.CollectRows(rows, scanCompany)
	return out, fail("companies", err)
}

// Company reads one company of ws.
func (s *Store) Company(ctx context.Context, ws, id core.ID) (core.Company, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+companyCols+` FROM companies WHERE workspace_id = $1 AND id = $2`, ws, id)
	if err != nil {
		return core.Company{}, fail("company", err)
	}
	c, err := pgx.CollectExactlyOneRow(rows, scanCompany)
	return c, fail("company", err)
}

func scanCompany(row pgx.CollectableRow) (core.Company, error) {
	var c core.Company
	err := row.Scan(&c.ID, &c.Name, &c.Domain, &c.FeedbackCount, &c.CreatedAt)
	c.CreatedAt = c.CreatedAt.UTC().Truncate(time.Millisecond)
	return c, err
}
