package postgres

import (
	"context"

	"github.com/jackc/pgx/v5"

	"github.com/feedbridge/feedbridge/core"
)

// AddConnectorCounts adds each count to its row in one statement.
func (s *Store) AddConnectorCounts(ctx context.Context, counts []core.ConnectorCount) error {
	ws, names := make([]string, len(counts)), make([]string, len(counts))
	days, taken, refused := make([]int64, len(counts)), make([]int64, len(counts)), make([]int64, len(counts))
	for i, c := range counts {
		ws[i], names[i], days[i], taken[i], refused[i] = string(c.Workspace), c.Name, c.Day, int64(c.Taken), int64(c.Refused)
	}
	// Rows of the same entry and day are summed first: one statement may not update a row twice.
	_, err := s.pool.Exec(ctx, `INSERT INTO connector_days (workspace_id, name, day, taken, refused)
		SELECT w, n, d, sum(t), sum(r) FROM unnest($1::text[], $2::text[], $3::bigint[], $4::bigint[], $5::bigint[]) AS u(w, n, d, t, r)
		GROUP BY w, n, d
		ON CONFLICT (workspace_id, day, name) DO UPDATE SET taken = connector_days.taken + excluded.taken,
			refused = connector_days.refused + excluded.refused`, ws, names, days, taken, refused)
	return fail("add connector counts", err)
}

// ConnectorCounts lists the counts of ws's entries on day, by name.
func (s *Store) ConnectorCounts(ctx context.Context, ws core.ID, day int64) ([]core.ConnectorCount, error) {
	rows, err := s.pool.Query(ctx, `SELECT workspace_id, name, day, taken::int, refused::int FROM connector_days
		WHERE workspace_id = $1 AND day = $2 ORDER BY name`, ws, day)
	if err != nil {
		return nil, fail("connector counts", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (core.ConnectorCount, error) {
		var c core.ConnectorCount
		return c, r.Scan(&c.Workspace, &c.Name, &c.Day, &c.Taken, &c.Refused)
	})
	return out, fail("connector counts", err)
}
