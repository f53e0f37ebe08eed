package postgres

import (
	"context"

	"github.com/jackc/pgx/v5"

	"github.com/feedbridge/feedbridge/core"
)

// themeSignalsSQL aggregates a workspace's insights by theme in one pass over the current and the
// previous window: t holds one row per (insight, theme), cur telling the window; the totals rank the
// themes (byte order breaks ties, as everywhere); companies and examples are kept for the top ones only.
const themeSignalsSQL = `WITH t AS MATERIALIZED (
		SELECT DISTINCT i.id AS iid, th.theme, i.record_id AS rid, i.sentiment_score AS score, i.kind,
			i.created_at AS ca, coalesce(c.name, '') AS company, r.created_at >= $2 AS cur
		FROM insights i JOIN records r ON r.workspace_id = i.workspace_id AND r.id = i.record_id
		LEFT JOIN companies c ON c.workspace_id = r.workspace_id AND c.id = r.company_id
		CROSS JOIN LATERAL unnest(i.themes) AS th(theme)
		WHERE i.workspace_id = $1 AND r.created_at >= $3 AND r.created_at <= $4 AND th.theme <> ''),
	totals AS (
		SELECT theme, count(*) FILTER (WHERE cur) AS n, count(DISTINCT rid) FILTER (WHERE cur) AS recs,
			coalesce(sum(score) FILTER (WHERE cur), 0) AS score,
			count(*) FILTER (WHERE cur AND kind = 'request') AS req, count(*) FILTER (WHERE cur AND kind = 'problem') AS prob,
			count(*) FILTER (WHERE cur AND kind = 'praise') AS praise, count(*) FILTER (WHERE cur AND kind = 'question') AS quest,
			count(*) FILTER (WHERE NOT cur) AS prev
		FROM t GROUP BY theme HAVING count(*) FILTER (WHERE cur) > 0),
	top AS (SELECT *, row_number() OVER (ORDER BY n DESC, recs DESC, theme COLLATE "C") AS pos FROM totals ORDER BY pos LIMIT $5),
	by_company AS (SELECT t.theme, company, count(*) AS cn FROM t JOIN top ON top.theme = t.theme
		WHERE cur AND company <> '' GROUP BY t.theme, company),
	last AS (SELECT t.theme, rid, max(ca) AS ca FROM t JOIN top ON top.theme = t.theme WHERE cur GROUP BY t.theme, rid),
	ex AS (SELECT theme, rid, row_number() OVER (PARTITION BY theme ORDER BY ca DESC, rid COLLATE "C" DESC) AS en FROM last)
	SELECT 'T', theme, '', pos::int, n::int, recs::int, req::int, prob::int, praise::int, quest::int, prev::int, score::float8 FROM top
	UNION ALL SELECT 'C', theme, company, cn::int, 0, 0, 0, 0, 0, 0, 0, 0 FROM by_company
	UNION ALL SELECT 'E', theme, rid, en::int, 0, 0, 0, 0, 0, 0, 0, 0 FROM ex WHERE en <= $6`

// ThemeSignals aggregates by theme in the database, in one query: no insight row leaves it.
func (s *Store) ThemeSignals(ctx context.Context, ws core.ID, q core.SignalQuery) ([]core.ThemeSignal, error) {
	rows, err := s.pool.Query(ctx, themeSignalsSQL, ws, q.From, q.PrevFrom, q.To, q.Limit, core.MaxSignalExamples)
	if err != nil {
		return nil, fail("theme signals", err)
	}
	parts, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (core.ThemePart, error) {
		var p core.ThemePart
		var req, prob, praise, quest int
		err := r.Scan(&p.Part, &p.Theme, &p.Value, &p.N, &p.Sig.Count, &p.Sig.Records, &req, &prob, &praise, &quest,
			&p.Sig.Previous, &p.Sig.ScoreSum)
		p.Sig.Kinds = map[string]int{"request": req, "problem": prob, "praise": praise, "question": quest}
		return p, err
	})
	if err != nil {
		return nil, fail("theme signals", err)
	}
	return core.AssembleThemeSignals(parts), nil
}
