package sqlite

import (
	"context"

	"github.com/feedbridge/feedbridge/core"
)

// themeSignalsSQL aggregates a workspace's insights by theme in one pass over the current and the
// previous window: rows holds one row per (insight, theme), cur telling the window; the totals rank the
// themes; companies and examples are kept for the top ones only. Parameters: from, ws, prev from, to,
// limit, examples.
const themeSignalsSQL = `WITH rows AS MATERIALIZED (
		SELECT DISTINCT i.id AS iid, je.value AS theme, i.record_id AS rid, i.sentiment_score AS score, i.kind AS kind,
			i.created_at AS ca, coalesce(c.name, '') AS company, r.created_at >= ? AS cur
		FROM insights i JOIN records r ON r.id = i.record_id AND r.workspace_id = i.workspace_id
		LEFT JOIN companies c ON c.id = r.company_id, json_each(i.themes) je
		WHERE i.workspace_id = ? AND r.created_at BETWEEN ? AND ? AND je.type = 'text' AND je.value <> ''),
	totals AS (
		SELECT theme, sum(cur) AS n, count(DISTINCT CASE WHEN cur THEN rid END) AS recs,
			total(CASE WHEN cur THEN score END) AS score, sum(cur AND kind = 'request') AS req,
			sum(cur AND kind = 'problem') AS prob, sum(cur AND kind = 'praise') AS praise,
			sum(cur AND kind = 'question') AS quest, sum(NOT cur) AS prev
		FROM rows GROUP BY theme HAVING sum(cur) > 0),
	ranked AS (SELECT *, row_number() OVER (ORDER BY n DESC, recs DESC, theme) AS pos FROM totals ORDER BY pos LIMIT ?),
	by_company AS (SELECT rows.theme, company, count(*) AS cn FROM rows JOIN ranked ON ranked.theme = rows.theme
		WHERE cur AND company <> '' GROUP BY rows.theme, company),
	latest AS (SELECT rows.theme, rid, max(ca) AS ca FROM rows JOIN ranked ON ranked.theme = rows.theme WHERE cur GROUP BY rows.theme, rid),
	ex AS (SELECT theme, rid, row_number() OVER (PARTITION BY theme ORDER BY ca DESC, rid DESC) AS en FROM latest)
	SELECT 'T', theme, '', pos, n, recs, req, prob, praise, quest, prev, score FROM ranked
	UNION ALL SELECT 'C', theme, company, cn, 0, 0, 0, 0, 0, 0, 0, 0 FROM by_company
	UNION ALL SELECT 'E', theme, rid, en, 0, 0, 0, 0, 0, 0, 0, 0 FROM ex WHERE en <= ?`

// ThemeSignals aggregates by theme in the database, in one query: no insight row leaves it.
func (s *Store) ThemeSignals(ctx context.Context, ws core.ID, q core.SignalQuery) ([]core.ThemeSignal, error) {
	rows, err := s.rq.QueryContext(ctx, themeSignalsSQL, ms(q.From), ws, ms(q.PrevFrom), ms(q.To), q.Limit, core.MaxSignalExamples)
	if err != nil {
		return nil, s.fail("theme signals", err)
	}
	parts, err := collect(rows, func(sc scanner) (core.ThemePart, error) {
		var p core.ThemePart
		var req, prob, praise, quest int
		err := sc.Scan(&p.Part, &p.Theme, &p.Value, &p.N, &p.Sig.Count, &p.Sig.Records, &req, &prob, &praise, &quest,
			&p.Sig.Previous, &p.Sig.ScoreSum)
		p.Sig.Kinds = map[string]int{"request": req, "problem": prob, "praise": praise, "question": quest}
		return p, err
	})
	if err != nil {
		return nil, s.fail("theme signals", err)
	}
	return core.AssembleThemeSignals(parts), nil
}
