package postgres

import (
	"context"

	"github.com/jackc/pgx/v5"

	"github.com/feedbridge/feedbridge/core"
)

// themeSignalsSQL reads the window's themes from the roll-up the insight triggers keep (migration 0013),
// in one query: the totals of every theme and day of the current and the previous window rank the themes
// (byte order breaks ties, as everywhere); companies and examples are read for the top ones only, the
// companies' day rows from a covering index and summed per company before its name is looked up, the
// examples from an index, newest record first. Parameters: ws, previous window's first day, current
// window's first day, last day, limit, examples, first and last instant of the current window.
const themeSignalsSQL = `WITH totals AS (
		SELECT theme, coalesce(sum(n) FILTER (WHERE day >= $3), 0) AS n, coalesce(sum(recs) FILTER (WHERE day >= $3), 0) AS recs,
			coalesce(sum(score) FILTER (WHERE day >= $3), 0) AS score,
			coalesce(sum(req) FILTER (WHERE day >= $3), 0) AS req, coalesce(sum(prob) FILTER (WHERE day >= $3), 0) AS prob,
			coalesce(sum(praise) FILTER (WHERE day >= $3), 0) AS praise, coalesce(sum(quest) FILTER (WHERE day >= $3), 0) AS quest,
			coalesce(sum(n) FILTER (WHERE day < $3), 0) AS prev
		FROM theme_days WHERE workspace_id = $1 AND day BETWEEN $2 AND $4 GROUP BY theme),
	top AS (SELECT *, row_number() OVER (ORDER BY n DESC, recs DESC, theme COLLATE "C") AS pos FROM totals WHERE n > 0
		ORDER BY pos LIMIT $5),
	per_id AS (SELECT theme, company_id, sum(n) AS cn FROM theme_day_companies
		WHERE workspace_id = $1 AND theme IN (SELECT theme FROM top) AND day BETWEEN $3 AND $4 GROUP BY theme, company_id),
	by_company AS (SELECT d.theme, c.name, sum(d.cn) AS cn FROM per_id d
		JOIN companies c ON c.workspace_id = $1 AND c.id = d.company_id GROUP BY d.theme, c.name)
	SELECT 'T', theme, '', pos::int, n::int, recs::int, req::int, prob::int, praise::int, quest::int, prev::int, score::float8 FROM top
	UNION ALL SELECT 'C', theme, name, cn::int, 0, 0, 0, 0, 0, 0, 0, 0 FROM by_company
	UNION ALL SELECT 'E', top.theme, ex.record_id, ex.en::int, 0, 0, 0, 0, 0, 0, 0, 0 FROM top
	CROSS JOIN LATERAL (SELECT x.record_id, row_number() OVER (ORDER BY x.created_at DESC, x.record_id COLLATE "C" DESC) AS en
		FROM record_themes x WHERE x.workspace_id = $1 AND x.theme = top.theme AND x.created_at BETWEEN $7 AND $8
		ORDER BY x.created_at DESC, x.record_id COLLATE "C" DESC LIMIT $6) ex`

// ThemeSignals aggregates by theme from the roll-up, in one query. One workspace computes one answer at a
// time (the signals gate), like its searches.
func (s *Store) ThemeSignals(ctx context.Context, ws core.ID, q core.SignalQuery) ([]core.ThemeSignal, error) {
	leave, err := s.signals.Enter(ctx, string(ws))
	if err != nil {
		return nil, fail("theme signals", err)
	}
	defer leave()
	from, to := core.EpochDay(q.From), core.EpochDay(q.To)
	rows, err := s.pool.Query(ctx, themeSignalsSQL, ws, core.EpochDay(q.PrevFrom), from, to, q.Limit, core.MaxSignalExamples,
		core.DayStart(from), core.DayStart(to+1).Add(-1))
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
