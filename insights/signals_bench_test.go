package insights

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/feedbridge/feedbridge/core"
	"github.com/feedbridge/feedbridge/store/postgres"
	"github.com/feedbridge/feedbridge/store/postgres/pgtest"
	"github.com/feedbridge/feedbridge/store/sqlite"
)

// BenchmarkSignalsAtSize fills a workspace with feedback created over the past year (100,000 on SQLite,
// 1,000,000 on PostgreSQL; FEEDBRIDGE_BENCH_SIGNAL_ROWS overrides both), two insights each naming themes
// from a vocabulary of 400 with skewed frequencies and a company for two thirds of them, fills the theme
// roll-up as the migration does for existing data, then asks the store for 90-day signals (with trends,
// companies and examples) while the daemon's pool drains 20,000 queued insight jobs beside it. Each
// request's window ends on another day, so no two share an answer. Reports p50 and p99 of the requests.
func BenchmarkSignalsAtSize(b *testing.B) {
	rows := func(def int) int {
		if v := os.Getenv("FEEDBRIDGE_BENCH_SIGNAL_ROWS"); v != "" {
			n, err := strconv.Atoi(v)
			if err != nil {
				b.Fatal(err)
			}
			return n
		}
		return def
	}
	// A sub-benchmark's function runs more than once (a probe with b.N = 1 first): each store is opened
	// (for the outer benchmark, which outlives the runs) and filled on its sub-benchmark's first run only,
	// so that a filter that skips a store skips its filling too.
	outer := b
	var (
		lite   *sqlite.Store
		liteWS core.ID
		pg     *postgres.Store
		pgWS   core.ID
	)
	b.Run("sqlite", func(b *testing.B) {
		if lite == nil {
			path := filepath.Join(outer.TempDir(), "fb.db")
			st, err := sqlite.Open(context.Background(), path)
			if err != nil {
				b.Fatal(err)
			}
			outer.Cleanup(func() { st.Close() })
			db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(10000)")
			if err != nil {
				b.Fatal(err)
			}
			liteWS = filledWorkspace(b, st, rows(100_000), func(ws core.ID, n int) { fillSQLite(b, db, ws, n) })
			db.Close()
			lite = st
		}
		signalsAtSize(b, lite, liteWS)
	})
	b.Run("postgres", func(b *testing.B) {
		if os.Getenv(pgtest.EnvURL) == "" {
			b.Skip(pgtest.EnvURL + " is not set")
		}
		if pg == nil {
			st := pgtest.Open(outer)
			pgWS = filledWorkspace(b, st, rows(1_000_000), func(ws core.ID, n int) { fillPostgres(b, st, ws, n) })
			pg = st
		}
		signalsAtSize(b, pg, pgWS)
	})
}

// filledWorkspace makes a workspace, fills it and queues 20,000 insight jobs in it.
func filledWorkspace(b *testing.B, st core.Store, n int, fill func(ws core.ID, n int)) core.ID {
	ctx := context.Background()
	svc := core.NewService(st, core.Options{})
	ws, err := svc.CreateWorkspace(ctx, "Bench", core.PlanPro, 0)
	if err != nil {
		b.Fatal(err)
	}
	t0 := time.Now()
	fill(ws.ID, n)
	b.Logf("filled %d feedback with insights and their roll-up in %s", n, time.Since(t0).Round(time.Second))
	queueUp(b, svc, ws.ID, 20_000, "draining")
	return ws.ID
}

func signalsAtSize(b *testing.B, st core.Store, ws core.ID) {
	ctx := context.Background()
	depth0, err := st.InsightQueueDepth(ctx)
	if err != nil {
		b.Fatal(err)
	}
	stop := startPool(b, st)
	defer stop()
	end := time.Now().UTC()
	lat := make([]time.Duration, 0, b.N)
	for i := range b.N {
		to := end.Add(-time.Duration(i%180) * 24 * time.Hour)
		from := to.Add(-90 * 24 * time.Hour)
		q := core.SignalQuery{From: from, To: to, PrevFrom: from.Add(-90 * 24 * time.Hour), PrevTo: from, Limit: 20}
		s := time.Now()
		got, err := st.ThemeSignals(ctx, ws, q)
		if err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(s))
		if i == 0 && (len(got) != 20 || len(got[0].Companies) != core.MaxSignalCompanies) {
			b.Fatalf("signals of a filled window: %d, first %+v", len(got), got)
		}
	}
	b.StopTimer()
	depth, err := st.InsightQueueDepth(ctx)
	if err != nil {
		b.Fatal(err)
	}
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(lat[min(len(lat)-1, len(lat)*99/100)].Microseconds())/1000, "p99-ms")
	b.ReportMetric(float64(depth0-depth), "jobs-drained-meanwhile")
	b.ReportMetric(0, "ns/op")
}

// rollupBackfill is the part of a store's theme roll-up migration that fills the roll-up from stored
// insights: the statements between its "-- Backfill" comment and its first trigger.
func rollupBackfill(b *testing.B, dir string) string {
	files, err := filepath.Glob(filepath.Join(dir, "*_theme_rollup.sql"))
	if err != nil || len(files) != 1 {
		b.Fatalf("theme roll-up migration in %s: %v %v", dir, files, err)
	}
	text, err := os.ReadFile(files[0])
	if err != nil {
		b.Fatal(err)
	}
	s := string(text)
	from := strings.Index(s, "-- Backfill")
	to := strings.Index(s, "CREATE TRIGGER")
	if f := strings.Index(s, "-- Row by row"); f > from && f < to {
		to = f
	}
	if from < 0 || to < from {
		b.Fatalf("no backfill section in %s", files[0])
	}
	return s[from:to]
}

// benchThemes picks one of 400 themes, the first ones far more often (the cube of a uniform draw).
const benchThemes = `'theme ' || cast(400 * ((abs(random()) % 1000000) / 1e6) * ((abs(random()) % 1000000) / 1e6) * ((abs(random()) % 1000000) / 1e6) AS INTEGER)`

func fillSQLite(b *testing.B, db *sql.DB, ws core.ID, n int) {
	exec := func(q string, args ...any) {
		if _, err := db.Exec(q, args...); err != nil {
			b.Fatalf("%.80s: %v", q, err)
		}
	}
	day := int64(24 * time.Hour / time.Millisecond)
	now := time.Now().UnixMilli()
	exec(`WITH RECURSIVE g(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM g WHERE i < 699)
		INSERT INTO companies (id, workspace_id, name, name_key, domain) SELECT printf('co%021d', i), ?, 'Company ' || i,
		'company ' || i, 'company' || i || '.com' FROM g`, ws)
	exec(`WITH RECURSIVE g(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM g WHERE i < ?)
		INSERT INTO records (seq, id, workspace_id, type, title, search_text, status, source, company_id, created_at, updated_at)
		SELECT -i, printf('rb%022d', i), ?, 'Feedback', 't', 't', 'Triage', 'CSV',
			CASE WHEN i % 3 = 0 THEN NULL ELSE printf('co%021d', i % 700) END, ? - i * (365 * ? / ?), 0 FROM g`, n, ws, now, day, n)
	exec(`WITH RECURSIVE g(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM g WHERE i < ?), k(j) AS (VALUES (0), (1))
		INSERT INTO insights (id, workspace_id, record_id, kind, summary, quote, sentiment, sentiment_score, themes, tags, extractor, created_at)
		SELECT printf('ib%021d%d', i, j), ?, printf('rb%022d', i), CASE abs(random()) % 4 WHEN 0 THEN 'request' WHEN 1 THEN 'problem'
			WHEN 2 THEN 'praise' ELSE 'question' END, 's', 'q', 'neutral', (abs(random()) % 200 - 100) / 100.0,
			json_array(`+benchThemes+`, `+benchThemes+`), '[]', 'builtin', ? FROM g, k`, n, ws, now)
	exec(rollupBackfill(b, "../store/sqlite/migrations"))
	exec(`ANALYZE`)
}

func fillPostgres(b *testing.B, st *postgres.Store, ws core.ID, n int) {
	ctx := context.Background()
	exec := func(q string, args ...any) {
		if _, err := st.Pool().Exec(ctx, q, args...); err != nil {
			b.Fatalf("%.80s: %v", q, err)
		}
	}
	exec(`INSERT INTO companies (workspace_id, id, name, domain) SELECT $1, 'co' || lpad(i::text, 22, '0'), 'Company ' || i,
		'company' || i || '.com' FROM generate_series(0, 699) i`, string(ws))
	exec(`INSERT INTO records (workspace_id, id, type, title, search_text, status, source, company_id, created_at, updated_at)
		SELECT $1, 'rb' || lpad(i::text, 22, '0'), 'Feedback', 't', 't', 'Triage', 'CSV',
			CASE WHEN i % 3 = 0 THEN '' ELSE 'co' || lpad((i % 700)::text, 22, '0') END,
			now() - i * (interval '365 days' / $2), now() FROM generate_series(1, $2) i`, string(ws), n)
	pgThemes := `'theme ' || floor(400 * random() * random() * random())::int`
	exec(`INSERT INTO insights (id, workspace_id, record_id, kind, summary, quote, sentiment, sentiment_score, themes, tags, extractor, created_at)
		SELECT 'ib' || lpad(i::text, 21, '0') || j, $1, 'rb' || lpad(i::text, 22, '0'),
			(ARRAY['request', 'problem', 'praise', 'question'])[1 + floor(random() * 4)::int], 's', 'q', 'neutral',
			random() * 2 - 1, ARRAY[`+pgThemes+`, `+pgThemes+`], '{}', 'builtin', now()
		FROM generate_series(1, $2) i, generate_series(0, 1) j`, string(ws), n)
	exec(rollupBackfill(b, "../store/postgres/migrations"))
	exec(`ANALYZE`)
}
