package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"

	"github.com/feedbridge/feedbridge/core"
)

// themeTotalsSQL ranks the themes of the current window from the day roll-up: it reads one row per theme
// and day of the window, never an insight. The previous window's counts are read for the ranked themes
// only (themePrevSQL): summing both windows at once sorted twice the rows for the trends of themes never
// sent. Parameters: ws, the window's first and last day, limit.
const themeTotalsSQL = `SELECT theme, sum(n) AS n, sum(recs) AS recs, sum(req), sum(prob), sum(praise), sum(quest), total(score)
	FROM theme_days WHERE workspace_id = ?1 AND day BETWEEN ?2 AND ?3 GROUP BY theme
	HAVING sum(n) > 0 ORDER BY n DESC, recs DESC, theme LIMIT ?4`

// themePrevSQL sums the previous window's insights of the themes in a JSON array. Parameters: ws, the
// window's first and last day, the themes.
const themePrevSQL = `SELECT theme, sum(n) FROM theme_days
	WHERE workspace_id = ?1 AND day BETWEEN ?2 AND ?3 AND theme IN (SELECT value FROM json_each(?4)) GROUP BY theme`

// ThemeSignals reads the window's themes from the roll-up the insight triggers keep (migration 0017):
// the totals of every theme and day of the window, then the previous window's counts, the companies and
// the examples of the top themes only. One workspace computes one answer at a time (the signals gate),
// like its searches.
func (s *Store) ThemeSignals(ctx context.Context, ws core.ID, q core.SignalQuery) ([]core.ThemeSignal, error) {
	leave, err := s.signals.Enter(ctx, string(ws))
	if err != nil {
		return nil, s.fail("theme signals", err)
	}
	defer leave()
	from, to, prevFrom := core.EpochDay(q.From), core.EpochDay(q.To), core.EpochDay(q.PrevFrom)
	// The current window starts no earlier than the previous one, as when both were summed in one range.
	rows, err := s.rq.QueryContext(ctx, themeTotalsSQL, ws, max(from, prevFrom), to, q.Limit)
	if err != nil {
		return nil, s.fail("theme signals", err)
	}
	parts, err := collect(rows, func(sc scanner) (core.ThemePart, error) {
		p := core.ThemePart{Part: "T"}
		var req, prob, praise, quest int
		err := sc.Scan(&p.Theme, &p.Sig.Count, &p.Sig.Records, &req, &prob, &praise, &quest, &p.Sig.ScoreSum)
		p.Sig.Kinds = map[string]int{"request": req, "problem": prob, "praise": praise, "question": quest}
		return p, err
	})
	if err != nil || len(parts) == 0 {
		return core.AssembleThemeSignals(parts), s.fail("theme signals", err)
	}
	names := make([]string, len(parts))
	for i := range parts {
		parts[i].N = i + 1
		names[i] = parts[i].Theme
	}
	if err := s.themePrevious(ctx, ws, prevFrom, min(from-1, to), names, parts); err != nil {
		return nil, s.fail("theme signals: previous", err)
	}
	companies, err := s.themeCompanies(ctx, ws, from, to, names)
	if err != nil {
		return nil, s.fail("theme signals: companies", err)
	}
	parts = append(parts, companies...)
	lo, hi := core.DayStart(from).UnixMilli(), core.DayStart(to+1).UnixMilli()-1
	for _, theme := range names {
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

// themePrevious sets the Previous count of each of parts (whose themes are names) from the days
// [first, last].
func (s *Store) themePrevious(ctx context.Context, ws core.ID, first, last int64, names []string, parts []core.ThemePart) error {
	if first > last {
		return nil
	}
	list, err := json.Marshal(names)
	if err != nil {
		return err
	}
	rows, err := s.rq.QueryContext(ctx, themePrevSQL, ws, first, last, string(list))
	if err != nil {
		return err
	}
	prev := map[string]int{}
	var theme string
	var n int
	if err := scanRows(rows, func() error {
		err := rows.Scan(&theme, &n)
		prev[theme] = n
		return err
	}); err != nil {
		return err
	}
	for i := range parts {
		parts[i].Sig.Previous = prev[parts[i].Theme]
	}
	return nil
}

// themeCompanies reads the top themes' company day rows of the window, one key range per theme and no
// join, sums them per company in memory, looks up the names once per company of any of the themes, and
// ranks each theme's companies by name there (core.CompanyTally). Grouping by name over a join in SQL cost
// several times the read of the rows.
func (s *Store) themeCompanies(ctx context.Context, ws core.ID, from, to int64, themes []string) ([]core.ThemePart, error) {
	tally := core.NewCompanyTally(len(themes))
	for i, theme := range themes {
		rows, err := s.rq.QueryContext(ctx, `SELECT company_id, n FROM theme_day_companies
			WHERE workspace_id = ? AND theme = ? AND day BETWEEN ? AND ?`, ws, theme, from, to)
		if err != nil {
			return nil, err
		}
		var id sql.RawBytes
		var n int
		err = scanRows(rows, func() error {
			err := rows.Scan(&id, &n)
			tally.Add(i, id, n)
			return err
		})
		if err != nil {
			return nil, err
		}
	}
	if len(tally.IDs) == 0 {
		return nil, nil
	}
	list, err := json.Marshal(tally.IDs)
	if err != nil {
		return nil, err
	}
	rows, err := s.rq.QueryContext(ctx, `SELECT c.id, c.name FROM json_each(?) k JOIN companies c ON c.id = k.value`, string(list))
	if err != nil {
		return nil, err
	}
	names := make(map[string]string, len(tally.IDs))
	if err := eachRow(rows, func(id, name string) { names[id] = name }); err != nil {
		return nil, err
	}
	return tally.CompanyParts(themes, names), nil
}

// scanRows calls scan for each row of rows, then closes them.
func scanRows(rows *sql.Rows, scan func() error) error {
	defer rows.Close()
	for rows.Next() {
		if err := scan(); err != nil {
			return err
		}
	}
	if err := rows.Close(); err != nil {
		return err
	}
	return rows.Err()
}
