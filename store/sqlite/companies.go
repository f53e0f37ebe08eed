package sqlite

import (
	"context"

	"github.com/feedbridge/feedbridge/core"
)

// companyCols are read by scanCompany. feedback_count and created_at are kept by triggers (migration 0012).
const companyCols = `id, name, domain, feedback_count, created_at`

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
	query := `SELECT ` + companyCols + ` FROM companies WHERE workspace_id = ?`
	args := []any{ws}
	if a := q.After; a != nil {
		query += ` AND (feedback_count < ? OR (feedback_count = ? AND id > ?))`
		args = append(args, a.FeedbackCount, a.FeedbackCount, a.ID)
	}
	rows, err := s.rq.QueryContext(ctx, query+` ORDER BY feedback_count DESC, id LIMIT ?`, append(args, q.Limit)...)
	if err != nil {
		return nil, s.fail("companies", err)
	}
	out, err := collect(rows, scanCompany)
	return out, s.fail("companies", err)
}

// Company reads one company of ws.
func (s *Store) Company(ctx context.Context, ws, id core.ID) (core.Company, error) {
	c, err := scanCompany(s.rq.QueryRowContext(ctx, `SELECT `+companyCols+` FROM companies WHERE workspace_id = ? AND id = ?`, ws, id))
	return c, s.fail("company", err)
}
