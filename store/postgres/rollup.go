package postgres

import (
	"github.com/jackc/pgx/v5"

	"github.com/feedbridge/feedbridge/core"
)

// rollupSQL adds the shares of the records listed ($1 workspaces, $2 record ids, each record once) to the
// theme roll-up of migration 0013, from the insights they now have, in one statement: each record's share
// per theme, then those shares summed into the day and company rows. The records' earlier insights were
// deleted in the same transaction, and the delete trigger took their shares away, so every share of these
// records is new. Rows are upserted in key order, so concurrent batches never wait on each other in a
// cycle.
const rollupSQL = `WITH shares AS (
		INSERT INTO record_themes (workspace_id, record_id, theme, day, created_at, company_id, n, score, req, prob, praise, quest)
		SELECT i.workspace_id, i.record_id, t.theme, epoch_day(r.created_at), r.created_at, r.company_id, count(*),
			sum(i.sentiment_score), count(*) FILTER (WHERE i.kind = 'request'), count(*) FILTER (WHERE i.kind = 'problem'),
			count(*) FILTER (WHERE i.kind = 'praise'), count(*) FILTER (WHERE i.kind = 'question')
		FROM unnest($1::text[], $2::text[]) AS k (ws, id)
		JOIN records r ON r.workspace_id = k.ws AND r.id = k.id
		JOIN insights i ON i.workspace_id = k.ws AND i.record_id = k.id
		CROSS JOIN LATERAL (SELECT DISTINCT x AS theme FROM unnest(i.themes) x WHERE x <> '') t
		GROUP BY i.workspace_id, i.record_id, t.theme, r.created_at, r.company_id
		RETURNING *),
	days AS (
		INSERT INTO theme_days AS d (workspace_id, day, theme, n, recs, score, req, prob, praise, quest)
		SELECT workspace_id, day, theme, sum(n), count(*), sum(score), sum(req), sum(prob), sum(praise), sum(quest)
		FROM shares GROUP BY workspace_id, day, theme ORDER BY workspace_id, day, theme
		ON CONFLICT (workspace_id, day, theme) DO UPDATE SET n = d.n + excluded.n, recs = d.recs + excluded.recs,
			score = d.score + excluded.score, req = d.req + excluded.req, prob = d.prob + excluded.prob,
			praise = d.praise + excluded.praise, quest = d.quest + excluded.quest)
	INSERT INTO theme_day_companies AS c (workspace_id, theme, day, company_id, n)
	SELECT workspace_id, theme, day, company_id, sum(n) FROM shares WHERE company_id <> ''
	GROUP BY workspace_id, theme, day, company_id ORDER BY workspace_id, theme, day, company_id
	ON CONFLICT (workspace_id, theme, day, company_id) DO UPDATE SET n = c.n + excluded.n`

// queueRollup adds to b the statement that adds the records of the results' jobs to the theme roll-up (see rollupSQL),
// each record once.
func queueRollup(b *pgx.Batch, results []core.JobResult) {
	seen := make(map[core.ID]bool, len(results))
	var wss, ids []string
	for _, r := range results {
		j := r.Job
		if !seen[j.RecordID] {
			seen[j.RecordID] = true
			wss, ids = append(wss, string(j.Workspace)), append(ids, string(j.RecordID))
		}
	}
	if len(ids) > 0 {
		b.Queue(rollupSQL, wss, ids)
	}
}
