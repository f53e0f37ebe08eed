package api

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/feedbridge/feedbridge/core"
	"github.com/feedbridge/feedbridge/store/postgres/pgtest"
	"github.com/feedbridge/feedbridge/store/sqlite"
)

// BenchmarkCreateMovesCost measures what records that move (links, history, merges, companies, erasure,
// import undo, suggestions) cost a create: core.Service.Submit into a store as migrated, against the same
// binary's Submit into a store of the same kind from which the schema objects those features put on the
// create path are dropped (the company count triggers, the demand, suggestion-refresh and
// import-run indexes, the index of companies by count). On PostgreSQL the insert trigger appends the
// create's count change to company_count_deltas and now and then folds it; dropping the trigger takes both
// off the create path. SQLite counts a create's company later, in bulk (the fold in
// store/sqlite/companies.go, which both arms run), and has only its new-company trigger to drop. The Go
// side is the same in both arms: a create writes no history row (its "created" entry is read from created_by) and
// no event without a subscriber, which leaves the schema as the only difference. Creates are one at a time,
// three Feedback to one Idea, each with a customer at one of 100 companies, in blocks of 50 that alternate
// between the two stores; ratio = throughput with ÷ throughput without (the bound is 0.95).
//
//	go test -run '^$' -bench CreateMovesCost -benchtime 20x ./api/
func BenchmarkCreateMovesCost(b *testing.B) {
	b.Run("sqlite", func(b *testing.B) {
		dir := b.TempDir()
		with := openSQLiteBench(b, filepath.Join(dir, "with.db"), nil)
		without := openSQLiteBench(b, filepath.Join(dir, "without.db"), sqliteMovesDrops)
		benchCreateMoves(b, with, without)
	})
	b.Run("postgres", func(b *testing.B) {
		if os.Getenv(pgtest.EnvURL) == "" {
			b.Skip(pgtest.EnvURL + " is not set")
		}
		with, without := pgtest.Open(b), pgtest.Open(b)
		for _, q := range []string{
			`DROP TRIGGER records_count_insert ON records`,
			`DROP INDEX records_demand`, `DROP INDEX records_import_run`,
			`DROP INDEX companies_by_count`, `DROP INDEX IF EXISTS records_updated`,
		} {
			_, err := without.Pool().Exec(context.Background(), q)
			must(b, err)
		}
		benchCreateMoves(b, with, without)
	})
}

// sqliteMovesDrops take from a SQLite store what records that move put on the create path.
var sqliteMovesDrops = []string{
	`DROP TRIGGER companies_created`,
	`DROP INDEX records_demand`, `DROP INDEX records_import_run`, `DROP INDEX companies_by_count`,
}

// BenchmarkCreateMovesPages counts what BenchmarkCreateMovesCost times, without the timing's noise: the
// pages that the commits of the same creates write to SQLite's log (a create's cost on this path is mostly
// its commit's page writes), into a store as migrated and into one without sqliteMovesDrops. The stores
// are opened as a command's (no checkpoints), so the log's growth is what the creates wrote; the first 200
// creates of each (new companies) are left out. ratio = pages without ÷ pages with.
//
//	go test -run '^$' -bench CreateMovesPages -benchtime 20x ./api/
func BenchmarkCreateMovesPages(b *testing.B) {
	ctx := context.Background()
	type arm struct {
		path  string
		svc   *core.Service
		ws    core.ID
		start int64
	}
	walSize := func(a *arm) int64 {
		fi, err := os.Stat(a.path + "-wal")
		must(b, err)
		return fi.Size()
	}
	var arms []*arm
	for i, drops := range [][]string{nil, sqliteMovesDrops} {
		a := &arm{path: filepath.Join(b.TempDir(), fmt.Sprint(i, ".db"))}
		must(b, openSQLiteBench(b, a.path, drops).Close())
		st, err := sqlite.OpenMode(ctx, a.path, sqlite.ModeCommand)
		must(b, err)
		b.Cleanup(func() { st.Close() })
		a.svc = core.NewService(st, core.Options{})
		w, err := a.svc.CreateWorkspace(ctx, "Bench", core.PlanBusiness, 0)
		must(b, err)
		a.ws = w.ID
		for k := range 200 {
			submitMoves(b, a.svc, a.ws, k)
		}
		a.start = walSize(a)
		arms = append(arms, a)
	}
	const block = 50
	n := 0
	for b.Loop() {
		for _, a := range arms {
			for i := range block {
				submitMoves(b, a.svc, a.ws, 200+n*block+i)
			}
		}
		n++
	}
	const frame = 4096 + 24 // a log frame: SQLite's default page and the frame's header
	var pages [2]float64
	for i, a := range arms {
		pages[i] = float64(walSize(a)-a.start) / frame / float64(n*block)
	}
	b.ReportMetric(pages[0], "with-pages/create")
	b.ReportMetric(pages[1], "without-pages/create")
	b.ReportMetric(pages[1]/pages[0], "ratio")
}

// submitMoves is the k-th create of the CreateMoves benchmarks: three Feedback to one Idea, each with a
// new customer at one of 100 companies.
func submitMoves(b *testing.B, svc *core.Service, ws core.ID, k int) {
	typ := core.RecordFeedback
	if k%4 == 3 {
		typ = core.RecordIdea
	}
	_, err := svc.Submit(context.Background(), ws, core.Submission{Type: typ, Title: fmt.Sprintf("Export to CSV times out %d", k),
		Description: "The export of a large board stops after a minute.", CustomerEmail: fmt.Sprintf("p%d@c%d.example", k, k%100)})
	if err != nil {
		b.Fatal(err)
	}
}

// openSQLiteBench opens a migrated SQLite store at path after running drops on its file.
func openSQLiteBench(b *testing.B, path string, drops []string) *sqlite.Store {
	ctx := context.Background()
	st, err := sqlite.Open(ctx, path)
	must(b, err)
	if len(drops) > 0 {
		must(b, st.Close())
		db, err := sql.Open("sqlite", "file:"+path)
		must(b, err)
		for _, q := range drops {
			_, err := db.ExecContext(ctx, q)
			must(b, err)
		}
		must(b, db.Close())
		st, err = sqlite.Open(ctx, path)
		must(b, err)
	}
	b.Cleanup(func() { st.Close() })
	return st
}

func benchCreateMoves(b *testing.B, with, without core.Store) {
	const block = 50
	ctx := context.Background()
	type arm struct {
		svc  *core.Service
		ws   core.ID
		took time.Duration
	}
	arms := []*arm{{svc: core.NewService(with, core.Options{})}, {svc: core.NewService(without, core.Options{})}}
	for _, a := range arms {
		w, err := a.svc.CreateWorkspace(ctx, "Bench", core.PlanBusiness, 0)
		must(b, err)
		a.ws = w.ID
	}
	n := 0
	create := func(a *arm) {
		t0 := time.Now()
		for i := range block {
			submitMoves(b, a.svc, a.ws, n*block+i)
		}
		a.took += time.Since(t0)
	}
	for b.Loop() {
		// The first arm of a round alternates, so that neither always runs on a cache the other warmed.
		if n%2 == 0 {
			create(arms[0])
			create(arms[1])
		} else {
			create(arms[1])
			create(arms[0])
		}
		n++
	}
	reqs := float64(n * block)
	b.ReportMetric(reqs/arms[0].took.Seconds(), "with-creates/s")
	b.ReportMetric(reqs/arms[1].took.Seconds(), "without-creates/s")
	b.ReportMetric(arms[1].took.Seconds()/arms[0].took.Seconds(), "ratio")
}
