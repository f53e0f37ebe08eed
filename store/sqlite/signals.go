package sqlite

import (
	"context"
	"encoding/json"

	"github.com/feedbridge/feedbridge/core"
)

// signalSegs reads the spans that cover a window (core.WindowSpans) from a JSON array of [length, first
// day, current] triples.
const signalSegs = `WITH segs AS (SELECT json_extract(value, '$[0]') AS span, json_extract(value, '$[1]') AS first_day,
	json_extract(value, '$[2]') AS cur FROM json_each(?2)) `

// themeTotalsSQL ranks the themes of the current window from the day and span roll-ups, with their counts
// in the previous window for the trend: single days read theme_days, longer spans theme_span_days, so a
// window of any length reads a handful of rows per theme, never an insight. Parameters: ws, the spans of
// both windows (signalSegs), limit.
const themeTotalsSQL = signalSegs + `, parts AS (
		SELECT g.cur, d.theme, d.n, d.recs, d.score, d.req, d.prob, d.praise, d.quest FROM segs g
			JOIN theme_days d ON d.workspace_id = ?1 AND d.day = g.first_day WHERE g.span = 1
		UNION ALL SELECT g.cur, d.theme, d.n, d.recs, d.score, d.req, d.prob, d.praise, d.quest FROM segs g
			JOIN theme_span_days d ON d.workspace_id = ?1 AND d.span = g.span AND d.first_day = g.first_day WHERE g.span > 1)
	SELECT 'T', theme, '', row_number() OVER (ORDER BY n DESC, recs DESC, theme), n, recs, req, prob, praise, quest, prev, score
	FROM (SELECT theme, sum(CASE WHEN cur THEN n ELSE 0 END) AS n, sum(CASE WHEN cur THEN recs ELSE 0 END) AS recs,
		total(CASE WHEN cur THEN score END) AS score, sum(CASE WHEN cur THEN req ELSE 0 END) AS req,
		sum(CASE WHEN cur THEN prob ELSE 0 END) AS prob, sum(CASE WHEN cur THEN praise ELSE 0 END) AS praise,
		sum(CASE WHEN cur THEN quest ELSE 0 END) AS quest, sum(CASE WHEN cur THEN 0 ELSE n END) AS prev
		FROM parts GROUP BY theme)
	WHERE n > 0 ORDER BY n DESC, recs DESC, theme LIMIT ?3`

// themeCompaniesSQL sums the companies of the themes of a JSON array (?3) over the current window's spans,
// per company first, so that each company's name is looked up once per theme rather than once per day or
// span it was named in.
const themeCompaniesSQL = signalSegs + `, top AS (SELECT value AS theme FROM json_each(?3))
	SELECT d.theme AS theme, c.name AS name, sum(d.cn) AS cn FROM (SELECT theme, company_id, sum(n) AS cn FROM (
			SELECT t.theme, d.company_id, d.n FROM top t, segs g JOIN theme_day_companies d
				ON d.workspace_id = ?1 AND d.theme = t.theme AND d.day = g.first_day WHERE g.cur AND g.span = 1
			UNION ALL SELECT t.theme, d.company_id, d.n FROM top t, segs g JOIN theme_span_companies d
				ON d.workspace_id = ?1 AND d.theme = t.theme AND d.span = g.span AND d.first_day = g.first_day
				WHERE g.cur AND g.span > 1)
		GROUP BY theme, company_id) d
	JOIN companies c ON c.id = d.company_id GROUP BY d.theme, c.name`

// themeTopCompaniesSQL keeps the first ?4 companies of each theme of themeCompaniesSQL, most insights first
// (then by name), each row with the theme's count of company names.
const themeTopCompaniesSQL = `SELECT theme, name, cn, total FROM (SELECT theme, name, cn, count(*) OVER (PARTITION BY theme) AS total,
		row_number() OVER (PARTITION BY theme ORDER BY cn DESC, name) AS rk FROM (` + themeCompaniesSQL + `))
	WHERE rk <= ?4`

// windowSegs is the JSON array of the spans that cover the previous window [prevFrom, from-1] and the
// current one [from, to], for signalSegs.
func windowSegs(prevFrom, from, to int64) (string, error) {
	var segs [][3]int64
	for cur, w := range [][2]int64{{prevFrom, from - 1}, {from, to}} {
		lengths, firsts := core.WindowSpans(w[0], w[1])
		for i := range lengths {
			segs = append(segs, [3]int64{lengths[i], firsts[i], int64(cur)})
		}
	}
	b, err := json.Marshal(segs)
	return string(b), err
}

// ThemeSignals reads the window's themes from the roll-up the insight triggers keep (migrations 0017 and
// 0022): the totals of every theme and span of the two windows, then the companies and examples of the top
// themes only. One workspace computes one answer at a time (the signals gate), like its searches.
func (s *Store) ThemeSignals(ctx context.Context, ws core.ID, q core.SignalQuery) ([]core.ThemeSignal, error) {
	leave, err := s.signals.Enter(ctx, string(ws))
	if err != nil {
		return nil, s.fail("theme signals", err)
	}
	defer leave()
	from, to := core.EpochDay(q.From), core.EpochDay(q.To)
	segs, err := windowSegs(core.EpochDay(q.PrevFrom), from, to)
	if err != nil {
		return nil, s.fail("theme signals", err)
	}
	rows, err := s.rq.QueryContext(ctx, themeTotalsSQL, ws, segs, q.Limit)
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
	themes := make([]string, len(parts))
	for i, p := range parts {
		themes[i] = p.Theme
	}
	top, err := json.Marshal(themes)
	if err != nil {
		return nil, s.fail("theme signals", err)
	}
	rows, err = s.rq.QueryContext(ctx, themeTopCompaniesSQL, ws, segs, string(top), core.MaxSignalCompanies)
	if err != nil {
		return nil, s.fail("theme signals: companies", err)
	}
	companies, err := collect(rows, func(sc scanner) (core.ThemePart, error) {
		p := core.ThemePart{Part: "C"}
		var total int
		err := sc.Scan(&p.Theme, &p.Value, &p.N, &total)
		parts = append(parts, core.ThemePart{Part: "K", Theme: p.Theme, N: total})
		return p, err
	})
	if err != nil {
		return nil, s.fail("theme signals: companies", err)
	}
	parts = append(parts, companies...)
	lo, hi := core.DayStart(from).UnixMilli(), core.DayStart(to+1).UnixMilli()-1
	for _, theme := range themes {
		rows, err := s.rq.QueryContext(ctx, `SELECT record_id FROM record_themes WHERE workspace_id = ? AND theme = ?
			AND created_at BETWEEN ? AND ? ORDER BY created_at DESC, record_id DESC LIMIT ?`, ws, theme, lo, hi, core.MaxSignalExamples)
		if err != nil {
			return nil, s.fail("theme signals: examples", err)
		}
		n := 0
		ex, err := collect(rows, func(sc scanner) (core.ThemePart, error) {
			n++
			p := core.ThemePart{Part: "E", Theme: theme, N: n}
			return p, sc.Scan(&p.Value)
		})
		if err != nil {
			return nil, s.fail("theme signals: examples", err)
		}
		parts = append(parts, ex...)
	}
	return core.AssembleThemeSignals(parts), nil
}
