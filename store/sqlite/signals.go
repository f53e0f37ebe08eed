package sqlite

import (
	"context"
	"strings"

	"github.com/feedbridge/feedbridge/core"
)

// themeTotalsSQL ranks the themes of the current window from the day roll-up, with their counts in the
// previous window for the trend: it reads one row per theme and day of the two windows, never an insight.
// Parameters: ws, previous window's first day, current window's first day, last day, limit.
const themeTotalsSQL = `SELECT 'T', theme, '', row_number() OVER (ORDER BY n DESC, recs DESC, theme), n, recs, req, prob, praise, quest, prev, score
	FROM (SELECT theme, sum(CASE WHEN day >= ?3 THEN n ELSE 0 END) AS n, sum(CASE WHEN day >= ?3 THEN recs ELSE 0 END) AS recs,
		total(CASE WHEN day >= ?3 THEN score END) AS score, sum(CASE WHEN day >= ?3 THEN req ELSE 0 END) AS req,
		sum(CASE WHEN day >= ?3 THEN prob ELSE 0 END) AS prob, sum(CASE WHEN day >= ?3 THEN praise ELSE 0 END) AS praise,
		sum(CASE WHEN day >= ?3 THEN quest ELSE 0 END) AS quest, sum(CASE WHEN day < ?3 THEN n ELSE 0 END) AS prev
		FROM theme_days WHERE workspace_id = ?1 AND day BETWEEN ?2 AND ?4 GROUP BY theme)
	WHERE n > 0 ORDER BY n DESC, recs DESC, theme LIMIT ?5`

// ThemeSignals reads the window's themes from the roll-up the insight triggers keep (migration 0015):
// the totals of every theme and day of the two windows, then the companies and examples of the top themes
// only. One workspace computes one answer at a time (the signals gate), like its searches.
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
	themes := make([]any, 0, len(parts)+3)
	themes = append(themes, ws, from, to)
	for _, p := range parts {
		themes = append(themes, p.Theme)
	}
	in := "?" + strings.Repeat(", ?", len(parts)-1)
	// The day rows are summed per company first, so that each company's name is looked up once per
	// theme rather than once per day it was named on.
	rows, err = s.rq.QueryContext(ctx, `SELECT d.theme, c.name, sum(d.cn) FROM (SELECT theme, company_id, sum(n) AS cn
			FROM theme_day_companies WHERE workspace_id = ? AND day BETWEEN ? AND ? AND theme IN (`+in+`)
			GROUP BY theme, company_id) d
		JOIN companies c ON c.id = d.company_id GROUP BY d.theme, c.name`, themes...)
	if err != nil {
		return nil, s.fail("theme signals: companies", err)
	}
	companies, err := collect(rows, func(sc scanner) (core.ThemePart, error) {
		p := core.ThemePart{Part: "C"}
		return p, sc.Scan(&p.Theme, &p.Value, &p.N)
	})
	if err != nil {
		return nil, s.fail("theme signals: companies", err)
	}
	parts = append(parts, companies...)
	lo, hi := core.DayStart(from).UnixMilli(), core.DayStart(to+1).UnixMilli()-1
	for _, theme := range themes[3:] {
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
