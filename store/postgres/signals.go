package postgres

import (
	"context"

	"github.com/jackc/pgx/v5"

	"github.com/feedbridge/feedbridge/core"
)

// themeSignalsSQL reads the window's themes from the roll-up the insight triggers keep (migrations 0017
// and 0023), in one query. Both windows are covered by aligned spans (core.WindowSpans): single days read
// the day tables, longer spans the span tables, so a window of any length reads a handful of rows per theme.
// The totals of every theme over the current and the previous window rank the themes (byte order breaks
// ties, as everywhere); the examples are read for the top ones only, from an index, newest record first.
// Parameters: ws, the spans' lengths, first days and whether each is of the current window, limit,
// examples, first and last instant of the current window.
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
		ORDER BY pos LIMIT $5)
	SELECT 'T', theme, '', pos::int, n::int, recs::int, req::int, prob::int, praise::int, quest::int, prev::int, score::float8 FROM top
	UNION ALL SELECT 'E', top.theme, ex.record_id, ex.en::int, 0, 0, 0, 0, 0, 0, 0, 0 FROM top
	CROSS JOIN LATERAL (SELECT x.record_id, row_number() OVER (ORDER BY x.created_at DESC, x.record_id COLLATE "C" DESC) AS en
		FROM record_themes x WHERE x.workspace_id = $1 AND x.theme = top.theme AND x.created_at BETWEEN $7 AND $8
		ORDER BY x.created_at DESC, x.record_id COLLATE "C" DESC LIMIT $6) ex`

// themeCompaniesSQL returns the bare company rows of the top themes over the current window's spans:
// each theme's position in $2 (from 1), the company and its insights in one day or span. They are summed
// and ranked in memory (core.CompanyTally): grouping them in the query sorted every row, twice, by keys
// the planner could not foresee the number of. Parameters: ws, the themes, the spans' lengths and first
// days.
const themeCompaniesSQL = `WITH segs AS (SELECT * FROM unnest($3::int[], $4::int[]) AS g (span, first_day)),
	th AS (SELECT * FROM unnest($2::text[]) WITH ORDINALITY AS t (theme, i))
	SELECT th.i::int, d.company_id, d.n FROM th CROSS JOIN segs g JOIN theme_day_companies d
		ON d.workspace_id = $1 AND d.theme = th.theme AND d.day = g.first_day WHERE g.span = 1
	UNION ALL SELECT th.i::int, d.company_id, d.n FROM th CROSS JOIN segs g JOIN theme_span_companies d
		ON d.workspace_id = $1 AND d.theme = th.theme AND d.span = g.span AND d.first_day = g.first_day WHERE g.span > 1`

// ThemeSignals aggregates by theme from the roll-up: the themes' totals and examples in one query, the top
// themes' companies in a second and their names in a third, all three in one read-only snapshot. One
// workspace computes one answer at a time (the signals gate), like its searches.
func (s *Store) ThemeSignals(ctx context.Context, ws core.ID, q core.SignalQuery) ([]core.ThemeSignal, error) {
	leave, err := s.signals.Enter(ctx, string(ws))
	if err != nil {
		return nil, fail("theme signals", err)
	}
	defer leave()
	from, to := core.EpochDay(q.From), core.EpochDay(q.To)
	lengths, firsts := core.WindowSpans(core.EpochDay(q.PrevFrom), from-1)
	cur := make([]bool, len(lengths))
	curLengths, curFirsts := core.WindowSpans(from, to)
	lengths, firsts = append(lengths, curLengths...), append(firsts, curFirsts...)
	for range curLengths {
		cur = append(cur, true)
	}
	var parts []core.ThemePart
	err = pgx.BeginTxFunc(ctx, s.pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		rows, err := tx.Query(ctx, themeSignalsSQL, ws, lengths, firsts, cur, q.Limit, core.MaxSignalExamples,
			core.DayStart(from), core.DayStart(to+1).Add(-1))
		if err != nil {
			return err
		}
		parts, err = pgx.CollectRows(rows, func(r pgx.CollectableRow) (core.ThemePart, error) {
			var p core.ThemePart
			var req, prob, praise, quest int
			err := r.Scan(&p.Part, &p.Theme, &p.Value, &p.N, &p.Sig.Count, &p.Sig.Records, &req, &prob, &praise, &quest,
				&p.Sig.Previous, &p.Sig.ScoreSum)
			p.Sig.Kinds = map[string]int{"request": req, "problem": prob, "praise": praise, "question": quest}
			return p, err
		})
		if err != nil {
			return err
		}
		var themes []string
		for _, p := range parts {
			if p.Part == "T" {
				themes = append(themes, p.Theme)
			}
		}
		if len(themes) == 0 {
			return nil
		}
		companies, err := themeCompanies(ctx, tx, ws, themes, curLengths, curFirsts)
		parts = append(parts, companies...)
		return err
	})
	if err != nil {
		return nil, fail("theme signals", err)
	}
	return core.AssembleThemeSignals(parts), nil
}

// themeCompanies reads the themes' company rows over the spans, sums them per company, looks up the names
// once per company of any of the themes and ranks each theme's companies by name (core.CompanyTally).
func themeCompanies(ctx context.Context, tx pgx.Tx, ws core.ID, themes []string, lengths, firsts []int64) ([]core.ThemePart, error) {
	tally := core.NewCompanyTally(len(themes))
	rows, err := tx.Query(ctx, themeCompaniesSQL, ws, themes, lengths, firsts)
	if err != nil {
		return nil, err
	}
	var (
		i  int
		id []byte
		n  int
	)
	if _, err := pgx.ForEachRow(rows, []any{&i, &id, &n}, func() error {
		tally.Add(i-1, id, n)
		return nil
	}); err != nil {
		return nil, err
	}
	if len(tally.IDs) == 0 {
		return nil, nil
	}
	rows, err = tx.Query(ctx, `SELECT id, name FROM companies WHERE workspace_id = $1 AND id = ANY ($2::text[])`, ws, tally.IDs)
	if err != nil {
		return nil, err
	}
	names := make(map[string]string, len(tally.IDs))
	if err := eachRow(rows, func(id, name string) { names[id] = name }); err != nil {
		return nil, err
	}
	return tally.CompanyParts(themes, names), nil
}
