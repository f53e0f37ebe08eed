package postgres

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/feedbridge/feedbridge/core"
)

// companyCols are read in core.Company's field order, from companies c. created_at is kept by a trigger
// (migration 0009); a company's count is its feedback_count plus its changes not yet folded into it
// (migration 0026), which the same snapshot shows together.
const companyCols = `c.id, c.name, c.domain, ` + companyCount + `, c.created_at`

// companyCount is the count of the company c, its pending changes read by index.
const companyCount = `c.feedback_count + coalesce((SELECT sum(d.n)::bigint FROM company_count_deltas d
	WHERE d.workspace_id = c.workspace_id AND d.company_id = c.id), 0)`

// pendingCounts is the net pending change of each company of workspace $1 that has one, as p.
const pendingCounts = `p AS (SELECT company_id, sum(n)::bigint AS n FROM company_count_deltas WHERE workspace_id = $1
	GROUP BY company_id HAVING sum(n) <> 0)`

// CompanyList reads one page in count order. The companies without pending changes come in the order
// of the companies_by_count index, the few with some are counted apart (an index probe each), and the page
// is the first q.Limit of both; that order is the exact counts' order, which is what cursors are issued in.
func (s *Store) CompanyList(ctx context.Context, ws core.ID, q core.CompanyQuery) ([]core.Company, error) {
	after, pendingAfter := "", ` WHERE n IS NOT NULL` // NULL: a company deleted since
	args := []any{ws, q.Limit}
	if a := q.After; a != nil {
		// The first bound is the index's range; the second leaves out the ties up to the cursor.
		after = ` AND c.feedback_count <= $3 AND (c.feedback_count < $3 OR c.id > $4)`
		pendingAfter += ` AND (n < $3 OR (n = $3 AND id > $4))`
		args = append(args, a.FeedbackCount, a.ID)
	}
	query := `WITH ` + pendingCounts + `, pending AS MATERIALIZED (
		SELECT p.company_id AS id, p.n + (SELECT c.feedback_count FROM companies c WHERE c.workspace_id = $1 AND c.id = p.company_id) AS n
		FROM p), page AS (
		(SELECT c.id, c.feedback_count AS n FROM companies c
		 WHERE c.workspace_id = $1 AND c.id NOT IN (SELECT company_id FROM p)` + after + `
		 ORDER BY c.feedback_count DESC, c.id LIMIT $2)
		UNION ALL
		(SELECT id, n FROM pending` + pendingAfter + `))
	SELECT c.id, c.name, c.domain, page.n, c.created_at FROM page JOIN companies c ON c.workspace_id = $1 AND c.id = page.id
	ORDER BY page.n DESC, page.id LIMIT $2`
	rows, err := s.pool.Query(ctx, query, args...)
	if err != nil {
		return nil, fail("companies", err)
	}
	out, err := pgx.CollectRows(rows, scanCompany)
	return out, fail("companies", err)
}

// Company reads one company of ws.
func (s *Store) Company(ctx context.Context, ws, id core.ID) (core.Company, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+companyCols+` FROM companies c WHERE c.workspace_id = $1 AND c.id = $2`, ws, id)
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
