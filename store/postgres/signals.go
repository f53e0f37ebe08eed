package postgres

import (
	"context"

	"github.com/jackc/pgx/v5"

	"github.com/feedbridge/feedbridge/core"
)

// themeSignalsSQL reads the window's themes from the running totals the day tables' triggers keep
// (migration 0025), in one query: a window's sums are the totals at its last day less those before its first
// day, three look-ups per theme (the third for the previous window) and two per company of a top theme,
// whatever the window's length. The themes are ranked by their totals (byte order breaks ties, as
// everywhere); companies and examples are read for the top ones only, each company's count found before its
// name is looked up and only the first ones of each theme sent with their count, the examples from an index,
// newest record first. Parameters: ws, the previous window's first day, the current window's first and last
// day, limit, examples, first and last instant of the current window, companies.
const themeSignalsSQL = `WITH totals AS (
		SELECT l.theme, hi.n - coalesce(lo.n, 0) AS n, hi.recs - coalesce(lo.recs, 0) AS recs,
			hi.score - coalesce(lo.score, 0) AS score, hi.req - coalesce(lo.req, 0) AS req, hi.prob - coalesce(lo.prob, 0) AS prob,
			hi.praise - coalesce(lo.praise, 0) AS praise, hi.quest - coalesce(lo.quest, 0) AS quest,
			coalesce(lo.n, 0) - coalesce(pp.n, 0) AS prev
		FROM theme_list l
		CROSS JOIN LATERAL (SELECT t.n, t.recs, t.score, t.req, t.prob, t.praise, t.quest FROM theme_day_totals t
			WHERE t.workspace_id = $1 AND t.theme = l.theme AND t.day <= $4 ORDER BY t.day DESC LIMIT 1) hi
		LEFT JOIN LATERAL (SELECT t.n, t.recs, t.score, t.req, t.prob, t.praise, t.quest FROM theme_day_totals t
			WHERE t.workspace_id = $1 AND t.theme = l.theme AND t.day < $3 ORDER BY t.day DESC LIMIT 1) lo ON true
		LEFT JOIN LATERAL (SELECT t.n FROM theme_day_totals t
			WHERE t.workspace_id = $1 AND t.theme = l.theme AND t.day < $2 ORDER BY t.day DESC LIMIT 1) pp ON true
		WHERE l.workspace_id = $1),
	top AS (SELECT *, row_number() OVER (ORDER BY n DESC, recs DESC, theme COLLATE "C") AS pos FROM totals WHERE n > 0
		ORDER BY pos LIMIT $5),
	per_id AS (SELECT t.theme, l.company_id, hi.n - coalesce(lo.n, 0) AS cn FROM top t
		JOIN theme_company_list l ON l.workspace_id = $1 AND l.theme = t.theme
		CROSS JOIN LATERAL (SELECT x.n FROM theme_company_totals x WHERE x.workspace_id = $1 AND x.theme = t.theme
			AND x.company_id = l.company_id AND x.day <= $4 ORDER BY x.day DESC LIMIT 1) hi
		LEFT JOIN LATERAL (SELECT x.n FROM theme_company_totals x WHERE x.workspace_id = $1 AND x.theme = t.theme
			AND x.company_id = l.company_id AND x.day < $3 ORDER BY x.day DESC LIMIT 1) lo ON true
		WHERE hi.n > coalesce(lo.n, 0)),
	by_company AS (SELECT d.theme, c.name, sum(d.cn) AS cn FROM per_id d
		JOIN companies c ON c.workspace_id = $1 AND c.id = d.company_id GROUP BY d.theme, c.name),
	ranked AS (SELECT theme, name, cn, count(*) OVER (PARTITION BY theme) AS total,
		row_number() OVER (PARTITION BY theme ORDER BY cn DESC, name COLLATE "C") AS rk FROM by_company)
	SELECT 'T', theme, '', pos::int, n::int, recs::int, req::int, prob::int, praise::int, quest::int, prev::int, score::float8 FROM top
	UNION ALL SELECT 'C', theme, name, cn::int, 0, 0, 0, 0, 0, 0, 0, 0 FROM ranked WHERE rk <= $9
	UNION ALL SELECT 'K', theme, '', total::int, 0, 0, 0, 0, 0, 0, 0, 0 FROM ranked WHERE rk = 1
	UNION ALL SELECT 'E', top.theme, ex.record_id, ex.en::int, 0, 0, 0, 0, 0, 0, 0, 0 FROM top
	CROSS JOIN LATERAL (SELECT x.record_id, row_number() OVER (ORDER BY x.created_at DESC, x.record_id COLLATE "C" DESC) AS en
		FROM record_themes x WHERE x.workspace_id = $1 AND x.theme = top.theme AND x.created_at BETWEEN $7 AND $8
		ORDER BY x.created_at DESC, x.record_id COLLATE "C" DESC LIMIT $6) ex`

// ThemeSignals aggregates by theme from the roll-up's running totals, in one query. One workspace computes one answer at a
// time (the signals gate), like its searches.
func (s *Store) ThemeSignals(ctx context.Context, ws core.ID, q core.SignalQuery) ([]core.ThemeSignal, error) {
	leave, err := s.signals.Enter(ctx, string(ws))
	if err != nil {
		return nil, fail("theme signals", err)
	}
	defer leave()
	from, to := core.EpochDay(q.From), core.EpochDay(q.To)
	rows, err := s.pool.Query(ctx, themeSignalsSQL, ws, core.EpochDay(q.PrevFrom), from, to, q.Limit, core.MaxSignalExamples,
		core.DayStart(from), core.DayStart(to+1).Add(-1), core.MaxSignalCompanies)
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
