package postgres

import (
	"context"
	"encoding/json"

	"github.com/feedbridge/feedbridge/core"
)

// updateOwnRow writes an edit of the record's own row (see core.Applied) and its history entry as one
// statement, so outside an explicit transaction: one round trip where BEGIN, UPDATE, INSERT and COMMIT
// take four. The version in the WHERE clause keeps the check of UpdateRecord; the entry is written only
// for a row the UPDATE changed, and both or neither are, as in any single statement. Such an edit
// references nothing new, so there is nothing to resolve.
func (s *Store) updateOwnRow(ctx context.Context, ws core.ID, c core.RecordChange) error {
	ch, err := json.Marshal(c.History.Changes)
	if err != nil {
		return fail("update record", err)
	}
	tag, err := s.pool.Exec(ctx, `WITH u AS (
		UPDATE records SET title = $3, description_html = $4, description = $5, search_text = $6, status = $7,
			importance = $8, release = $9, timeframe = $10, updated_at = $11, version = version + 1
		WHERE workspace_id = $1 AND id = $2 AND version = $12 AND status <> 'Merged'
		RETURNING workspace_id, id)
	INSERT INTO record_history (workspace_id, record_id, at, actor, action, changes)
	SELECT workspace_id, id, $13, $14, $15, $16 FROM u`,
		ws, c.ID, c.Title, c.DescriptionHTML, c.Description, c.SearchText, c.Status, nullInt(c.Importance),
		c.Release, c.Timeframe, ms(c.UpdatedAt), c.Version,
		ms(c.History.At), c.History.Actor.String(), c.History.Action, string(ch))
	if err != nil {
		return fail("update record", err)
	}
	if tag.RowsAffected() != 1 {
		return fail("update record", staleOrWhy(ctx, s.pool, ws, c.ID))
	}
	return nil
}
