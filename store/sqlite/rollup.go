package sqlite

import (
	"context"
	"encoding/json"

	"github.com/feedbridge/feedbridge/core"
)

// rollupSQL adds the shares of the records listed (a JSON array of record ids, each once) to the theme
// roll-up of migration 0015, from the insights they now have: first each record's share per theme, then
// those shares summed into the day and company rows. The records' earlier insights were deleted in the
// same transaction, and the delete trigger took their shares away, so every share of these records is new.
var rollupSQL = []string{
	`INSERT INTO record_themes (workspace_id, record_id, theme, day, created_at, company_id, n, score, req, prob, praise, quest)
	SELECT x.workspace_id, x.record_id, x.theme, r.created_at / 86400000, r.created_at, coalesce(r.company_id, ''), count(*),
		total(x.score), sum(x.kind = 'request'), sum(x.kind = 'problem'), sum(x.kind = 'praise'), sum(x.kind = 'question')
	FROM (SELECT DISTINCT i.id, i.workspace_id, i.record_id, i.kind, i.sentiment_score AS score, je.value AS theme
		FROM json_each(?1) k JOIN records rr ON rr.id = k.value
		JOIN insights i ON i.workspace_id = rr.workspace_id AND i.record_id = rr.id, json_each(i.themes) je
		WHERE je.type = 'text' AND je.value <> '') x
	JOIN records r ON r.id = x.record_id
	GROUP BY x.workspace_id, x.record_id, x.theme`,
	`INSERT INTO theme_days (workspace_id, day, theme, n, recs, score, req, prob, praise, quest)
	SELECT x.workspace_id, x.day, x.theme, sum(x.n), count(*), total(x.score), sum(x.req), sum(x.prob), sum(x.praise), sum(x.quest)
	FROM json_each(?1) k JOIN records r ON r.id = k.value
	JOIN record_themes x ON x.workspace_id = r.workspace_id AND x.record_id = r.id
	WHERE true GROUP BY x.workspace_id, x.day, x.theme
	ON CONFLICT (workspace_id, day, theme) DO UPDATE SET n = n + excluded.n, recs = recs + excluded.recs,
		score = score + excluded.score, req = req + excluded.req, prob = prob + excluded.prob,
		praise = praise + excluded.praise, quest = quest + excluded.quest`,
	`INSERT INTO theme_day_companies (workspace_id, theme, day, company_id, n)
	SELECT x.workspace_id, x.theme, x.day, x.company_id, sum(x.n)
	FROM json_each(?1) k JOIN records r ON r.id = k.value
	JOIN record_themes x ON x.workspace_id = r.workspace_id AND x.record_id = r.id
	WHERE x.company_id <> '' GROUP BY x.workspace_id, x.theme, x.day, x.company_id
	ON CONFLICT (workspace_id, theme, day, company_id) DO UPDATE SET n = n + excluded.n`,
}

// rollupRecords adds the records' new insights to the theme roll-up (see rollupSQL); records repeat-free.
func rollupRecords(ctx context.Context, tx *wtx, records []core.ID) error {
	if len(records) == 0 {
		return nil
	}
	list, err := json.Marshal(records)
	if err != nil {
		return err
	}
	for _, q := range rollupSQL {
		if _, err := tx.ExecContext(ctx, q, string(list)); err != nil {
			return err
		}
	}
	return nil
}
