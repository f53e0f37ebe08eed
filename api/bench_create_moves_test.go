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
// create path are dropped (the company count triggers, which append to company_count_deltas and fold
// it, the demand, suggestion-refresh, contact and import-run indexes, the index of companies by count).
// The Go side is
// the same in both arms: a create writes no history row (its "created" entry is read from created_by) and
// no event without a subscriber, which leaves the schema as the only difference. Creates are one at a time,
// three Feedback to one Idea, each with a customer at one of 100 companies, in blocks of 50 that alternate
// between the two stores; ratio = throughput with ÷ throughput without (the bound is 0.95).
//
//	go test -run '^$' -bench CreateMovesCost -benchtime 20x ./api/
func BenchmarkCreateMovesCost(b *testing.B) {
	b.Run("sqlite", func(b *testing.B) {
		dir := b.TempDir()
		with := openSQLiteBench(b, filepath.Join(dir, "with.db"), nil)
		without := openSQLiteBench(b, filepath.Join(dir, "without.db"), []string{
			`DROP TRIGGER records_count_insert`, `DROP TRIGGER companies_created`,
			`DROP INDEX records_demand`, `DROP INDEX records_contact`,
			`DROP INDEX records_import_run`, `DROP INDEX companies_by_count`,
		})
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
			k := n*block + i
			typ := core.RecordFeedback
			if k%4 == 3 {
				typ = core.RecordIdea
			}
			_, err := a.svc.Submit(ctx, a.ws, core.Submission{Type: typ, Title: fmt.Sprintf("Export to CSV times out %d", k),
				Description: "The export of a large board stops after a minute.", CustomerEmail: fmt.Sprintf("p%d@c%d.example", k, k%100)})
			if err != nil {
				b.Fatal(err)
			}
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
