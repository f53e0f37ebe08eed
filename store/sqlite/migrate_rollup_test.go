package sqlite

import (
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/feedbridge/feedbridge/core"
	"github.com/feedbridge/feedbridge/insights"
)

// TestThemeRollupMigration builds a database just before the theme roll-up, with insights already stored,
// then opens it: the migration must fill the roll-up so that signals equal a roll-up from scratch.
func TestThemeRollupMigration(t *testing.T) {
	migs, err := migrations()
	if err != nil {
		t.Fatal(err)
	}
	before := -1
	for i, m := range migs {
		if strings.Contains(m.Name, "theme_rollup") {
			before = i
		}
	}
	if before < 0 {
		t.Fatal("no theme roll-up migration")
	}
	path := filepath.Join(t.TempDir(), "old.db")
	db, exec := oldDatabase(t, path, before)
	ws, acme, globex := core.NewID(), core.NewID(), core.NewID()
	exec(`INSERT INTO workspaces(id, name, plan, created_at, num) VALUES (?, 'A', 'pro', 0, 1)`, ws)
	exec(`INSERT INTO companies(id, workspace_id, name, name_key, domain) VALUES (?, ?, 'Acme', 'acme', 'acme.com'),
		(?, ?, 'Globex', 'globex', 'globex.com')`, acme, ws, globex, ws)
	day := time.Date(2025, 3, 1, 0, 0, 0, 0, time.UTC)
	themes := []string{`["dark mode","csv export"]`, `["csv export","csv export",""]`, `["single sign-on"]`, `[]`}
	for i := range 12 {
		rec := core.NewID()
		var company any
		if i%3 == 1 {
			company = acme
		} else if i%3 == 2 {
			company = globex
		}
		exec(`INSERT INTO records(seq, id, workspace_id, type, title, search_text, status, source, company_id, created_at, updated_at)
			VALUES (?, ?, ?, 'Feedback', 't', 't', 'Triage', 'API', ?, ?, 0)`, 1<<48|int64(i), rec, ws, company,
			day.Add(time.Duration(i)*11*time.Hour).UnixMilli())
		for k := range 1 + i%2 {
			exec(`INSERT INTO insights(id, workspace_id, record_id, kind, summary, quote, sentiment, sentiment_score, themes, tags,
				extractor, created_at) VALUES (?, ?, ?, ?, 's', 'q', 'neutral', ?, ?, '[]', 'builtin', ?)`, core.NewID(), ws, rec,
				[]string{"request", "problem", "praise", "question"}[(i+k)%4], float64(i%5-2)/4, themes[(i+k)%len(themes)],
				day.UnixMilli())
		}
	}
	exec(`INSERT INTO records_fts_pending(seq) SELECT seq FROM records`)
	db.Close()

	st := openT(t, path)
	from, to := day, day.Add(10*24*time.Hour-time.Millisecond)
	pf, pt := from.Add(-10*24*time.Hour), from.Add(-time.Millisecond)
	cur, err := st.InsightRows(t.Context(), ws, from, to)
	if err != nil {
		t.Fatal(err)
	}
	want := insights.Rollup(cur, nil, 100)
	got, err := st.ThemeSignals(t.Context(), ws, core.SignalQuery{From: from, To: to, PrevFrom: pf, PrevTo: pt, Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 || len(got) != len(want) {
		t.Fatalf("%d signals, want %d (3)", len(got), len(want))
	}
	for i := range got {
		g, w := insights.FromTheme(got[i]), want[i]
		if !reflect.DeepEqual(fmt.Sprint(g), fmt.Sprint(w)) {
			t.Errorf("signal %d after the migration:\n got %+v\nwant %+v", i, g, w)
		}
	}
}
