package postgres_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/feedbridge/feedbridge/core"
	"github.com/feedbridge/feedbridge/insights"
	"github.com/feedbridge/feedbridge/store/postgres"
)

// TestThemeRollupMigration builds a schema just before the theme roll-up, with insights already stored,
// then opens the store: the migration must fill the roll-up so that signals equal a roll-up from scratch.
func TestThemeRollupMigration(t *testing.T) {
	o := olderSchema(t, func(_ int, name string) bool { return strings.Contains(name, "theme_rollup") })
	ctx, u, exec := o.ctx, o.url, o.exec
	ws, acme, globex := core.NewID(), core.NewID(), core.NewID()
	exec(`INSERT INTO workspaces (id, name, plan, created_at) VALUES ($1, 'A', 'pro', now())`, string(ws))
	exec(`INSERT INTO companies (workspace_id, id, name, domain) VALUES ($1, $2, 'Acme', 'acme.com'), ($1, $3, 'Globex', 'globex.com')`,
		string(ws), string(acme), string(globex))
	day := time.Date(2025, 3, 1, 0, 0, 0, 0, time.UTC)
	themes := [][]string{{"dark mode", "csv export"}, {"csv export", "csv export", ""}, {"single sign-on"}, {}}
	for i := range 12 {
		rec := string(core.NewID())
		company := []string{"", string(acme), string(globex)}[i%3]
		exec(`INSERT INTO records (workspace_id, id, type, title, search_text, status, source, company_id, created_at, updated_at)
			VALUES ($1, $2, 'Feedback', 't', 't', 'Triage', 'API', $3, $4, $4)`, string(ws), rec, company,
			day.Add(time.Duration(i)*11*time.Hour))
		for k := range 1 + i%2 {
			exec(`INSERT INTO insights (id, workspace_id, record_id, kind, summary, quote, sentiment, sentiment_score, themes, tags,
				extractor, created_at) VALUES ($1, $2, $3, $4, 's', 'q', 'neutral', $5, $6, '{}', 'builtin', $7)`,
				string(core.NewID()), string(ws), rec, []string{"request", "problem", "praise", "question"}[(i+k)%4],
				float64(i%5-2)/4, themes[(i+k)%len(themes)], day)
		}
	}

	st, err := postgres.Open(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	from, to := day, day.Add(10*24*time.Hour-time.Millisecond)
	cur, err := st.InsightRows(ctx, ws, from, to)
	if err != nil {
		t.Fatal(err)
	}
	want := insights.Rollup(cur, nil, 100)
	got, err := st.ThemeSignals(ctx, ws, core.SignalQuery{From: from, To: to, PrevFrom: from.Add(-10 * 24 * time.Hour),
		PrevTo: from.Add(-time.Millisecond), Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 || len(got) != len(want) {
		t.Fatalf("%d signals, want %d (3)", len(got), len(want))
	}
	for i := range got {
		if g, w := fmt.Sprint(insights.FromTheme(got[i])), fmt.Sprint(want[i]); g != w {
			t.Errorf("signal %d after the migration:\n got %s\nwant %s", i, g, w)
		}
	}
}
