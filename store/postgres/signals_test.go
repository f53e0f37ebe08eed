package postgres_test

import (
	"context"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/feedbridge/feedbridge/core"
	"github.com/feedbridge/feedbridge/store/postgres"
	"github.com/feedbridge/feedbridge/store/postgres/pgtest"
)

// singleQuerySignalsSQL is how ThemeSignals answered before its companies were summed and ranked in memory:
// everything in one query, the companies grouped by id, then by name, and ranked by window functions.
const singleQuerySignalsSQL = `WITH segs AS (SELECT * FROM unnest($2::int[], $3::int[], $4::bool[]) AS g (span, first_day, cur)),
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

func singleQuerySignals(t *testing.T, st *postgres.Store, ws core.ID, q core.SignalQuery) []core.ThemeSignal {
	t.Helper()
	from, to := core.EpochDay(q.From), core.EpochDay(q.To)
	lengths, firsts := core.WindowSpans(core.EpochDay(q.PrevFrom), from-1)
	cur := make([]bool, len(lengths))
	l, f := core.WindowSpans(from, to)
	lengths, firsts = append(lengths, l...), append(firsts, f...)
	for range l {
		cur = append(cur, true)
	}
	rows, err := st.Pool().Query(context.Background(), singleQuerySignalsSQL, ws, lengths, firsts, cur, q.Limit,
		core.MaxSignalExamples, core.DayStart(from), core.DayStart(to+1).Add(-1), core.MaxSignalCompanies)
	if err != nil {
		t.Fatal(err)
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
		t.Fatal(err)
	}
	return core.AssembleThemeSignals(parts)
}

// ThemeSignals gives exactly the answer of the single query it replaced, over many windows of a filled
// workspace: skewed themes (so counts tie), companies sharing a name, records without a company, windows of
// 1 to 150 days ending on different days, limits from 1 to 60.
func TestThemeSignalsMatchSingleQuery(t *testing.T) {
	st := pgtest.Open(t)
	ctx := context.Background()
	svc := core.NewService(st, core.Options{})
	w, err := svc.CreateWorkspace(ctx, "Signals", core.PlanPro, 0)
	if err != nil {
		t.Fatal(err)
	}
	ws := string(w.ID)
	exec := func(q string, args ...any) {
		t.Helper()
		if _, err := st.Pool().Exec(ctx, q, args...); err != nil {
			t.Fatalf("%.60s: %v", q, err)
		}
	}
	const n = 6000
	exec(`SELECT setseed(0.42)`)
	// One company in five takes the name of another, so names repeat within the workspace.
	exec(`INSERT INTO companies (workspace_id, id, name, domain) SELECT $1, 'co' || lpad(i::text, 22, '0'),
		CASE WHEN i % 5 = 4 THEN 'Company ' || (i % 7) ELSE 'Company ' || i END, 'company' || i || '.com'
		FROM generate_series(0, 59) i`, ws)
	exec(`INSERT INTO records (workspace_id, id, type, title, search_text, status, source, company_id, created_at, updated_at)
		SELECT $1, 'rt' || lpad(i::text, 22, '0'), 'Feedback', 't', 't', 'Triage', 'CSV',
			CASE WHEN i % 3 = 0 THEN '' ELSE 'co' || lpad((i % 60)::text, 22, '0') END,
			now() - i * (interval '300 days' / $2), now() FROM generate_series(1, $2) i`, ws, n)
	exec(`INSERT INTO insights (id, workspace_id, record_id, kind, summary, quote, sentiment, sentiment_score, themes, tags, extractor, created_at)
		SELECT 'it' || lpad(i::text, 21, '0') || j, $1, 'rt' || lpad(i::text, 22, '0'),
			(ARRAY['request', 'problem', 'praise', 'question'])[1 + floor(random() * 4)::int], 's', 'q', 'neutral',
			round((random() * 2 - 1)::numeric, 2), ARRAY['theme ' || floor(40 * random() * random())::int, 'theme ' || floor(40 * random() * random())::int],
			'{}', 'builtin', now()
		FROM generate_series(1, $2) i, generate_series(0, 1) j`, ws, n)
	var wss, ids []string
	if err := st.Pool().QueryRow(ctx, `SELECT array_agg(workspace_id), array_agg(id) FROM records WHERE workspace_id = $1`, ws).Scan(&wss, &ids); err != nil {
		t.Fatal(err)
	}
	exec(postgres.RollupSQL, wss, ids)

	end := time.Now().UTC()
	companies := 0
	for i := range 160 {
		days := 1 + (i*37)%150
		to := end.Add(-time.Duration((i*13)%200) * 24 * time.Hour)
		from := to.Add(-time.Duration(days-1) * 24 * time.Hour)
		q := core.SignalQuery{From: from, To: to, PrevFrom: from.Add(-time.Duration(days) * 24 * time.Hour),
			PrevTo: from.Add(-time.Millisecond), Limit: 1 + (i*7)%60}
		got, err := st.ThemeSignals(ctx, w.ID, q)
		if err != nil {
			t.Fatal(err)
		}
		want := singleQuerySignals(t, st, w.ID, q)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("window %d (%d days, limit %d):\n got %s\nwant %s", i, days, q.Limit, show(got), show(want))
		}
		for _, s := range got {
			companies += len(s.Companies)
		}
	}
	if companies == 0 {
		t.Fatal("no window had a company: the fill did not reach the roll-up")
	}
}

func show(s []core.ThemeSignal) string {
	out := ""
	for _, x := range s {
		out += fmt.Sprintf("\n  %+v", x)
	}
	return out
}
