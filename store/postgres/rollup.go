package postgres

import (
	"github.com/jackc/pgx/v5"

	"github.com/feedbridge/feedbridge/core"
	"github.com/feedbridge/feedbridge/store/internal/themeshare"
)

// rollupSQL adds the records' shares per theme ($1 workspaces, $2 record ids, $3 themes, $4–$9 the
// shares' counts and score, computed from the insights in hand: themeshare) to the theme roll-up of
// migration 0017, in one statement: the shares with their record's day and company, then those shares
// summed into the day and company rows. The records' earlier insights were deleted in the same
// transaction, and the delete trigger took their shares away, so every share of these records is new. A
// record that no longer exists adds nothing. Rows are upserted in key order, so concurrent batches never
// wait on each other in a cycle.
const rollupSQL = `WITH shares AS (
		INSERT INTO record_themes (workspace_id, record_id, theme, day, created_at, company_id, n, score, req, prob, praise, quest)
		SELECT s.ws, s.rec, s.theme, epoch_day(r.created_at), r.created_at, r.company_id, s.n, s.score, s.req, s.prob,
			s.praise, s.quest
		FROM unnest($1::text[], $2::text[], $3::text[], $4::int[], $5::float8[], $6::int[], $7::int[], $8::int[], $9::int[])
			AS s (ws, rec, theme, n, score, req, prob, praise, quest)
		JOIN records r ON r.workspace_id = s.ws AND r.id = s.rec
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

// queueRollup adds to b the statement that adds the results' records to the theme roll-up (see rollupSQL);
// results name each record once, with its final insights (themeshare.Latest).
func queueRollup(b *pgx.Batch, results []core.JobResult) {
	var (
		wss, recs, themes               []string
		ns, reqs, probs, praises, quest []int32
		scores                          []float64
	)
	for _, r := range results {
		for _, s := range themeshare.Shares(r) {
			wss, recs, themes = append(wss, string(s.Workspace)), append(recs, string(s.Record)), append(themes, s.Theme)
			ns, scores = append(ns, int32(s.N)), append(scores, s.Score)
			reqs, probs = append(reqs, int32(s.Req)), append(probs, int32(s.Prob))
			praises, quest = append(praises, int32(s.Praise)), append(quest, int32(s.Quest))
		}
	}
	if len(recs) > 0 {
		b.Queue(rollupSQL, wss, recs, themes, ns, scores, reqs, probs, praises, quest)
	}
}
