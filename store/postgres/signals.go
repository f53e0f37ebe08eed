package postgres

import (
	"context"

	"github.com/jackc/pgx/v5"

	"github.com/feedbridge/feedbridge/core"
)

// themeSignalsSQL reads the window's themes from the roll-up the insight triggers keep (migrations 0017
// and 0023), in one query. Both windows are covered by aligned spans (core.WindowSpans): single days read
// the day tables, longer spans the span tables, so a window of any length reads a handful of rows per theme
// (and company). The totals of every theme over the current and the previous window rank the themes (byte
// order breaks ties, as everywhere); companies and examples are read for the top ones only, the
// companies' rows summed per company before its name is looked up and only the first ones of each theme
// sent with their count, the examples from an index, newest record first. Parameters: ws, the spans'
// lengths, first days and whether each is of the current window, limit, examples, first and last instant
// of the current window, companies.
const themeSignalsSQL = `WITH segs AS (SELECT * FROM unnest($2::int[], $3::int[], $4::bool[]) AS g (span, first_day, cur)),
	parts AS (SELECT g.cur, d.theme, d.n, d.recs, d.score, d.req, d.prob, d.praise, d.quest FROM segs g
			JOIN theme_days d ON d.workspace_id = $1 AND d.day = g.first_day WHERE g.span = 1
		UNION ALL SELECT g.cur, d.theme, d.n, d.recs, d.score, d.req, d.prob, d.praise, d.quest FROM segs g
			JOIN theme_span_days d ON d.workspace_id = $1 AND d.span = g.span AND d.first_day = g.first_day WHERE g.span > 1),
	totals AS (
		SELECT theme, coalesce(sum(n) FILTER (WHERE cur), 0) AS n, coalesce(sum(recs) FILTER (WHERE cur), 0) AS recs,
			coalesce(sum(score) FILTER (WHERE cur), 0) AS score,
			coalesce(sum(req) FILTER (WHERE cur), 0) AS req, coalesce(sum(prob) FILTER (WHERE cur), 0) AS prob,
			coalesce(sum(praise) FILTER (WHERE cur), 0) AS praise, coalesce(sum(quest) FILTER (WHERE cur), 0) AS quest,
			coalesce(sum(n) FILTER (WHERE NOT cur), 0) AS prev
		FROM parts GROUP BY theme),
	top AS (SELECT *, row_number() OVER (ORDER BY n DESC, recs DESC, theme COLLATE "C") AS pos FROM totals WHERE n > 0
		ORDER BY pos LIMIT $5),
	per_id AS (SELECT theme, company_id, sum(n) AS cn FROM (
			SELECT t.theme, d.company_id, d.n FROM top t CROSS JOIN segs g JOIN theme_day_companies d
				ON d.workspace_id = $1 AND d.theme = t.theme AND d.day = g.first_day WHERE g.cur AND g.span = 1
			UNION ALL SELECT t.theme, d.company_id, d.n FROM top t CROSS JOIN segs g JOIN theme_span_companies d
				ON d.workspace_id = $1 AND d.theme = t.theme AND d.span = g.span AND d.first_day = g.first_day
				WHERE g.cur AND g.span > 1) u
		GROUP BY theme, company_id),
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

// ThemeSignals aggregates by theme from the roll-up, in one query. One workspace computes one answer at a
// time (the signals gate), like its searches.
func (s *Store) ThemeSignals(ctx context.Context, ws core.ID, q core.SignalQuery) ([]core.ThemeSignal, error) {
	leave, err := s.signals.Enter(ctx, string(ws))
	if err != nil {
		return nil, fail("theme signals", err)
	}
	defer leave()
	from, to := core.EpochDay(q.From), core.EpochDay(q.To)
	lengths, firsts := core.WindowSpans(core.EpochDay(q.PrevFrom), from-1)
	cur := make([]bool, len(lengths))
	l, f := core.WindowSpans(from, to)
	lengths, firsts = append(lengths, l...), append(firsts, f...)
	for range l {
		cur = append(cur, true)
	}
	rows, err := s.pool.Query(ctx, themeSignalsSQL, ws, lengths, firsts, cur, q.Limit, core.MaxSignalExamples,
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
