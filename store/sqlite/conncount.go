package sqlite

import (
	"context"

	"github.com/feedbridge/feedbridge/core"
)

// AddConnectorCounts adds each count to its row in one transaction.
func (s *Store) AddConnectorCounts(ctx context.Context, counts []core.ConnectorCount) error {
	return s.write(ctx, "add connector counts", func(tx *wtx) error {
		for _, c := range counts {
			if _, err := tx.ExecContext(ctx, `INSERT INTO connector_days(workspace_id, name, day, taken, refused)
				VALUES (?, ?, ?, ?, ?) ON CONFLICT (workspace_id, day, name) DO UPDATE SET
				taken = taken + excluded.taken, refused = refused + excluded.refused`,
				c.Workspace, c.Name, c.Day, c.Taken, c.Refused); err != nil {
				return err
			}
		}
		return nil
	})
}

// ConnectorCounts lists the counts of ws's entries on day, by name.
func (s *Store) ConnectorCounts(ctx context.Context, ws core.ID, day int64) ([]core.ConnectorCount, error) {
	rows, err := s.rq.QueryContext(ctx, `SELECT workspace_id, name, day, taken, refused FROM connector_days
		WHERE workspace_id = ? AND day = ? ORDER BY name`, ws, day)
	if err != nil {
		return nil, s.fail("connector counts", err)
	}
	out, err := collect(rows, func(sc scanner) (core.ConnectorCount, error) {
		var c core.ConnectorCount
		return c, sc.Scan(&c.Workspace, &c.Name, &c.Day, &c.Taken, &c.Refused)
	})
	return out, s.fail("connector counts", err)
}
