package sqlite

import (
	"context"
	"fmt"
	"strings"

	"github.com/feedbridge/feedbridge/core"
)

// themeTotalsSQL ranks the themes of the current window from the running totals the day tables' triggers
// keep (migration 0024), with their counts in the previous window for the trend: a window's sums are the
// totals at its last day less those before its first day, three look-ups per theme whatever the window's
// length, never a day row or an insight. Parameters: ws, previous window's first day, current window's first
// day, last day, limit.
const themeTotalsSQL = `SELECT 'T', theme, '', row_number() OVER (ORDER BY n DESC, recs DESC, theme), n, recs, req, prob, praise, quest, prev, score
	FROM (SELECT l.theme, hi.n - coalesce(lo.n, 0) AS n, hi.recs - coalesce(lo.recs, 0) AS recs,
		hi.score - coalesce(lo.score, 0) AS score, hi.req - coalesce(lo.req, 0) AS req, hi.prob - coalesce(lo.prob, 0) AS prob,
		hi.praise - coalesce(lo.praise, 0) AS praise, hi.quest - coalesce(lo.quest, 0) AS quest,
		coalesce(lo.n, 0) - coalesce(pp.n, 0) AS prev
		FROM theme_list l
		JOIN theme_day_totals hi ON hi.workspace_id = ?1 AND hi.theme = l.theme AND hi.day = (SELECT max(day)
			FROM theme_day_totals WHERE workspace_id = ?1 AND theme = l.theme AND day <= ?4)
		LEFT JOIN theme_day_totals lo ON lo.workspace_id = ?1 AND lo.theme = l.theme AND lo.day = (SELECT max(day)
			FROM theme_day_totals WHERE workspace_id = ?1 AND theme = l.theme AND day < ?3)
		LEFT JOIN theme_day_totals pp ON pp.workspace_id = ?1 AND pp.theme = l.theme AND pp.day = (SELECT max(day)
			FROM theme_day_totals WHERE workspace_id = ?1 AND theme = l.theme AND day < ?2)
		WHERE l.workspace_id = ?1)
	WHERE n > 0 ORDER BY n DESC, recs DESC, theme LIMIT ?5`

// themeCompaniesSQL counts each company's insights of the listed themes in the window from the running
// totals per theme and company (two look-ups per company of a theme), sums them per company name and ranks
// the names of each theme, most insights first (then by name, byte order): only the first ones are returned,
// each with the theme's count of names. Parameters: ws, first day, last day, companies, then the themes.
const themeCompaniesSQL = `WITH per_id AS MATERIALIZED (SELECT l.theme, l.company_id,
		coalesce((SELECT x.n FROM theme_company_totals x WHERE x.workspace_id = ?1 AND x.theme = l.theme
			AND x.company_id = l.company_id AND x.day <= ?3 ORDER BY x.day DESC LIMIT 1), 0)
		- coalesce((SELECT x.n FROM theme_company_totals x WHERE x.workspace_id = ?1 AND x.theme = l.theme
			AND x.company_id = l.company_id AND x.day < ?2 ORDER BY x.day DESC LIMIT 1), 0) AS cn
		FROM theme_company_list l WHERE l.workspace_id = ?1 AND l.theme IN (%s)),
	by_name AS (SELECT d.theme, c.name, sum(d.cn) AS cn FROM per_id d CROSS JOIN companies c ON c.id = d.company_id
		GROUP BY d.theme, c.name HAVING sum(d.cn) > 0),
	ranked AS (SELECT theme, name, cn, count(*) OVER (PARTITION BY theme) AS total,
		row_number() OVER (PARTITION BY theme ORDER BY cn DESC, name) AS rk FROM by_name)
	SELECT theme, name, cn, total FROM ranked WHERE rk <= ?4`

// ThemeSignals reads the window's themes from the running totals of the roll-up (migration 0024): the
// totals of every theme at the windows' edges, then the companies and examples of the top themes only.
// One workspace computes one answer at a time (the signals gate), like its searches.
func (s *Store) ThemeSignals(ctx context.Context, ws core.ID, q core.SignalQuery) ([]core.ThemeSignal, error) {
	leave, err := s.signals.Enter(ctx, string(ws))
	if err != nil {
		return nil, s.fail("theme signals", err)
	}
	defer leave()
	from, to, prevFrom := core.EpochDay(q.From), core.EpochDay(q.To), core.EpochDay(q.PrevFrom)
	rows, err := s.rq.QueryContext(ctx, themeTotalsSQL, ws, prevFrom, from, to, q.Limit)
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
	if err != nil || len(parts) == 0 {
		return core.AssembleThemeSignals(parts), s.fail("theme signals", err)
	}
	themes := make([]any, 0, len(parts)+4)
	themes = append(themes, ws, from, to, core.MaxSignalCompanies)
	for _, p := range parts {
		themes = append(themes, p.Theme)
	}
	marks := make([]string, len(parts))
	for i := range marks {
		marks[i] = fmt.Sprintf("?%d", i+5)
	}
	in := strings.Join(marks, ", ")
		rows, err = s.rq.QueryContext(ctx, fmt.Sprintf(themeCompaniesSQL, in), themes...)
	if err != nil {
		return nil, s.fail("theme signals: companies", err)
	}
	var companies []core.ThemePart
	_, err = collect(rows, func(sc scanner) (struct{}, error) {
		p, k := core.ThemePart{Part: "C"}, core.ThemePart{Part: "K"}
		err := sc.Scan(&p.Theme, &p.Value, &p.N, &k.N)
		k.Theme = p.Theme
		companies = append(companies, p, k)
		return struct{}{}, err
	})
	if err != nil {
		return nil, s.fail("theme signals: companies", err)
	}
	parts = append(parts, companies...)
	lo, hi := core.DayStart(from).UnixMilli(), core.DayStart(to+1).UnixMilli()-1
	for _, theme := range themes[4:] {
		rows, err := s.rq.QueryContext(ctx, `SELECT record_id FROM record_themes WHERE workspace_id = ? AND theme = ?
			AND created_at BETWEEN ? AND ? ORDER BY created_at DESC, record_id DESC LIMIT ?`, ws, theme, lo, hi, core.MaxSignalExamples)
		if err != nil {
			return nil, s.fail("theme signals: examples", err)
		}
		n := 0
		ex, err := collect(rows, func(sc scanner) (core.ThemePart, error) {
			n++
			p := core.ThemePart{Part: "E", Theme: theme.(string), N: n}
			return p, sc.Scan(&p.Value)
		})
		if err != nil {
			return nil, s.fail("theme signals: examples", err)
		}
		parts = append(parts, ex...)
	}
	return core.AssembleThemeSignals(parts), nil
}
