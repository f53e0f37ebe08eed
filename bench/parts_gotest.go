package main

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// The parts below run benchmarks that other packages own and copy every metric they report; none of them
// re-implements what those benchmarks measure. Figure keys are "pkg:BenchmarkName/sub:unit".

func (e *env) pgEnv() []string {
	if e.cfg.PostgresURL == "" {
		return nil
	}
	return []string{"FEEDBRIDGE_TEST_POSTGRES_URL=" + e.cfg.PostgresURL}
}

// run runs g and collects the results under each prefix.
func (e *env) run(ctx context.Context, p *Part, g goBench, size int, prefixes ...string) (BenchOutput, bool) {
	out, ok := e.bench(ctx, p, g)
	if !ok {
		return out, false
	}
	for _, pre := range prefixes {
		p.collect(out, g.Pkg, pre, size, p.Commands[len(p.Commands)-1])
	}
	return out, true
}

// partAPI: POST /records/feedback against a bare INSERT handler, and search latency over 100k records,
// through the real server on SQLite (api's benchmarks have no PostgreSQL variant; partPair covers it).
func (e *env) partAPI(ctx context.Context) *Part {
	p := &Part{ID: "api", Title: "HTTP API on SQLite (api benchmarks)", Store: "SQLite"}
	sz := e.cfg.Sizes
	e.run(ctx, p, goBench{Pkg: "./api", Bench: "^BenchmarkCreateFeedback$", Benchtime: fmt.Sprintf("%dx", sz.APICreates),
		Timeout: 15 * time.Minute}, 0, "BenchmarkCreateFeedback")
	e.runInsightCreates(ctx, p, "sqlite")
	e.run(ctx, p, goBench{Pkg: "./api", Bench: "^BenchmarkPatchStatus$/^sqlite$", Benchtime: "20x", Timeout: 15 * time.Minute}, 0, "BenchmarkPatchStatus")
	// What records that move cost a create: the store as migrated against the same store without the
	// schema objects those features put on the create path, alternating.
	e.run(ctx, p, goBench{Pkg: "./api", Bench: "^BenchmarkCreateMovesCost$/^sqlite$", Benchtime: "20x", Timeout: 15 * time.Minute}, 0, "BenchmarkCreateMovesCost")
	// The daemon's connection pool against a plain listener, 8 clients, the two arms alternating.
	e.run(ctx, p, goBench{Pkg: "./daemon", Bench: "^BenchmarkConnPool$", Benchtime: "20x", Timeout: 5 * time.Minute}, 0, "BenchmarkConnPool")
	// The demand listing fills 100,000 records, quick enough on SQLite to run in both modes.
	e.run(ctx, p, goBench{Pkg: "./store/sqlite", Bench: "^BenchmarkDemandListing$", Benchtime: "1x", Timeout: 15 * time.Minute},
		100_000, "BenchmarkDemandListing")
	// Every listing filter alone, with a date window and with a tag, over 100,000 records of a realistic
	// shape; then the process's resident memory after a read load on such a store.
	if out, ok := e.run(ctx, p, goBench{Pkg: "./store/sqlite", Bench: "^BenchmarkListingFilters$", Benchtime: "1x", Timeout: 15 * time.Minute},
		100_000, "BenchmarkListingFilters"); ok {
		p.Notes = append(p.Notes, out.Logs["BenchmarkListingFilters"]...) // which listings the slowest p50 came from
	}
	e.run(ctx, p, goBench{Pkg: "./store/sqlite", Bench: "^BenchmarkReadMemory$", Benchtime: "1x", Timeout: 15 * time.Minute},
		100_000, "BenchmarkReadMemory")
	e.runErasure(ctx, p, "./store/sqlite", nil)
	if e.cfg.Mode == "quick" {
		// BenchmarkSearch always fills 120,000 records first, minutes on a busy machine; quick mode measures
		// search through the API on the smaller store of the pair part instead.
		p.Notes = append(p.Notes, "BenchmarkSearch (100,000 records, fixed) runs in full mode only")
		return p
	}
	e.run(ctx, p, goBench{Pkg: "./api", Bench: "^BenchmarkSearch$", Benchtime: fmt.Sprintf("%dx", sz.APISearches),
		Timeout: 15 * time.Minute}, 100_000, "BenchmarkSearch")
	return p
}

// partPGStore: the store's bulk path against pgx CopyFrom, search over PGSearchRows records, PATCH of a
// status against a bare UPDATE, Ideas by demand over PGDemandLinks links, and every listing filter over
// PGListingRows records.
func (e *env) partPGStore(ctx context.Context) *Part {
	p := &Part{ID: "pgstore", Title: "PostgreSQL store (store/postgres benchmarks)", Store: "PostgreSQL"}
	if e.cfg.PostgresURL == "" {
		p.skip("no PostgreSQL: give -postgres URL or set FEEDBRIDGE_TEST_POSTGRES_URL")
		return p
	}
	sz := e.cfg.Sizes
	e.run(ctx, p, goBench{Pkg: "./store/postgres", Bench: "^BenchmarkBulkVsCopy$", Benchtime: fmt.Sprintf("%dx", sz.PGBulkBatches),
		Env: e.pgEnv(), Timeout: 20 * time.Minute}, 0, "BenchmarkBulkVsCopy")
	out, ok := e.run(ctx, p, goBench{Pkg: "./store/postgres", Bench: "^BenchmarkSearch$/^mixed$", Benchtime: fmt.Sprintf("%dx", sz.PGSearches),
		Env: append(e.pgEnv(), "FEEDBRIDGE_BENCH_SEARCH_ROWS="+strconv.Itoa(sz.PGSearchRows)), Timeout: 90 * time.Minute}, sz.PGSearchRows, "BenchmarkSearch")
	if ok {
		p.Notes = append(p.Notes, out.Logs["BenchmarkSearch"]...)
	}
	e.runInsightCreates(ctx, p, "postgres")
	e.run(ctx, p, goBench{Pkg: "./api", Bench: "^BenchmarkPatchStatus$/^postgres$", Benchtime: "20x", Env: e.pgEnv(),
		Timeout: 15 * time.Minute}, 0, "BenchmarkPatchStatus")
	e.run(ctx, p, goBench{Pkg: "./api", Bench: "^BenchmarkCreateMovesCost$/^postgres$", Benchtime: "20x", Env: e.pgEnv(),
		Timeout: 15 * time.Minute}, 0, "BenchmarkCreateMovesCost")
	e.run(ctx, p, goBench{Pkg: "./store/postgres", Bench: "^BenchmarkDemandListing$", Benchtime: "1x",
		Env: append(e.pgEnv(), "FEEDBRIDGE_BENCH_DEMAND_LINKS="+strconv.Itoa(sz.PGDemandLinks)), Timeout: 30 * time.Minute},
		sz.PGDemandLinks, "BenchmarkDemandListing")
	out, ok = e.run(ctx, p, goBench{Pkg: "./store/postgres", Bench: "^BenchmarkListingFilters$", Benchtime: "1x",
		Env: append(e.pgEnv(), "FEEDBRIDGE_BENCH_LISTING_ROWS="+strconv.Itoa(sz.PGListingRows)), Timeout: 60 * time.Minute},
		sz.PGListingRows, "BenchmarkListingFilters")
	if ok {
		p.Notes = append(p.Notes, out.Logs["BenchmarkListingFilters"]...)
	}
	e.runErasure(ctx, p, "./store/postgres", e.pgEnv())
	return p
}

// runInsightCreates runs the api package's creates from 8 clients with the insight workers on, against a
// bare one-table INSERT handler, on one store kind.
func (e *env) runInsightCreates(ctx context.Context, p *Part, kind string) {
	e.run(ctx, p, goBench{Pkg: "./api", Bench: "^BenchmarkCreateWithInsights$/^" + kind + "$", Env: e.pgEnv(),
		Benchtime: fmt.Sprintf("%dx", e.cfg.Sizes.InsightCreates), Timeout: 15 * time.Minute}, 0, "BenchmarkCreateWithInsights")
}

// runErasure runs pkg's BenchmarkErasure: one customer's ErasureRecords records erased while another
// workspace writes beside it, with the benchmark's log (the writes' counts and medians) as notes.
func (e *env) runErasure(ctx context.Context, p *Part, pkg string, env []string) {
	n := e.cfg.Sizes.ErasureRecords
	if out, ok := e.run(ctx, p, goBench{Pkg: pkg, Bench: "^BenchmarkErasure$", Benchtime: "1x",
		Env: append(env, "FEEDBRIDGE_BENCH_ERASURE_RECORDS="+strconv.Itoa(n)), Timeout: 15 * time.Minute}, n, "BenchmarkErasure"); ok {
		p.Notes = append(p.Notes, out.Logs["BenchmarkErasure"]...)
	}
}

// partSQLiteStore: store-level search over a million records (full mode only; the API figure covers 100k).
func (e *env) partSQLiteStore(ctx context.Context) *Part {
	p := &Part{ID: "sqlitestore", Title: "SQLite store search at scale (store/sqlite benchmark)", Store: "SQLite"}
	sz := e.cfg.Sizes
	if sz.SQLiteStoreRows == 0 {
		p.skip("full mode only (fills a store of 1,000,000 records)")
		return p
	}
	out, ok := e.run(ctx, p, goBench{Pkg: "./store/sqlite", Bench: "^BenchmarkSearch$/^ordered$", Benchtime: fmt.Sprintf("%dx", sz.SQLiteStoreLoops),
		Env: []string{"FEEDBRIDGE_BENCH_RECORDS=" + strconv.Itoa(sz.SQLiteStoreRows)}, Timeout: 90 * time.Minute}, sz.SQLiteStoreRows, "BenchmarkSearch")
	if ok {
		p.Notes = append(p.Notes, out.Logs["BenchmarkSearch"]...)
	}
	e.run(ctx, p, goBench{Pkg: "./api", Bench: "^BenchmarkPatchStatus$/^postgres$", Benchtime: "20x", Env: e.pgEnv(),
		Timeout: 15 * time.Minute}, 0, "BenchmarkPatchStatus")
	e.run(ctx, p, goBench{Pkg: "./store/postgres", Bench: "^BenchmarkDemandListing$", Benchtime: "1x",
		Env: append(e.pgEnv(), "FEEDBRIDGE_BENCH_DEMAND_LINKS="+strconv.Itoa(sz.PGDemandLinks)), Timeout: 30 * time.Minute},
		sz.PGDemandLinks, "BenchmarkDemandListing")
	return p
}

// partCSV: the importer against raw prepared INSERTs (SQLite) and CopyFrom (PostgreSQL) of the same rows, over
// a uniform file and over one of a real export's shape.
func (e *env) partCSV(ctx context.Context) *Part {
	p := &Part{ID: "csv", Title: "CSV import (connectors/csvimport benchmark)", Store: "SQLite, PostgreSQL"}
	rows := e.cfg.Sizes.CSVRows
	e.run(ctx, p, goBench{Pkg: "./connectors/csvimport", Bench: "^BenchmarkImport$", Benchtime: "1x", Env: e.pgEnv(),
		Args: []string{"-bench-rows", strconv.Itoa(rows)}, Timeout: 90 * time.Minute}, rows, "BenchmarkImport")
	e.run(ctx, p, goBench{Pkg: "./connectors/csvimport", Bench: "^BenchmarkImportReal$", Benchtime: "1x", Env: e.pgEnv(),
		Args: []string{"-bench-rows", strconv.Itoa(rows)}, Timeout: 90 * time.Minute}, rows, "BenchmarkImportReal")
	return p
}

// partEmail: ingestion from Dovecot against the raw fetch of the same messages by the same IMAP client.
func (e *env) partEmail(ctx context.Context) *Part {
	p := &Part{ID: "email", Title: "Email ingestion from Dovecot (connectors/email benchmark)", Store: "SQLite"}
	a := e.cfg.IMAP
	if a.Addr == "" || a.User == "" || a.Pass == "" {
		p.skip("no IMAP server: set FEEDBRIDGE_TEST_IMAP_ADDR, _USER and _PASS (eval \"$(.ci/dovecot.sh)\")")
		return p
	}
	n := e.cfg.Sizes.EmailMessages
	g := goBench{Pkg: "./connectors/email", Bench: "^BenchmarkIngest$", Benchtime: "1x", Timeout: 45 * time.Minute,
		Env: []string{"FEEDBRIDGE_BENCH_MESSAGES=" + strconv.Itoa(n), "FEEDBRIDGE_TEST_IMAP_ADDR=" + a.Addr,
			"FEEDBRIDGE_TEST_IMAP_USER=" + a.User, "FEEDBRIDGE_TEST_IMAP_PASS=" + a.Pass}}
	out, ok := e.bench(ctx, p, g)
	if !ok {
		p.Status = strings.ReplaceAll(p.Status, a.Pass, "…") // the password never reaches RESULTS.md
		return p
	}
	cmd := g.command()
	if p.collect(out, g.Pkg, "BenchmarkIngest", n, cmd) == 0 && len(out.Skips) == 0 {
		p.Notes = nil
		p.skip("connectors/email has no BenchmarkIngest in this tree")
		return p
	}
	p.Notes = append(p.Notes, out.Logs["BenchmarkIngest"]...)
	p.Notes = append(p.Notes, "PostgreSQL not run: BenchmarkIngest writes to a SQLite store only")
	return p
}

// partSlack: a signed /feedback end to end through the real server, beside the direct Submit.
func (e *env) partSlack(ctx context.Context) *Part {
	p := &Part{ID: "slack", Title: "Slack slash command (connectors/slack benchmark)", Store: "SQLite"}
	if _, ok := e.run(ctx, p, goBench{Pkg: "./connectors/slack", Bench: "^BenchmarkSlashCommand$", Timeout: 10 * time.Minute,
		Benchtime: fmt.Sprintf("%dx", e.cfg.Sizes.SlackCommands)}, 0, "BenchmarkSlashCommand"); ok {
		p.Notes = append(p.Notes, "PostgreSQL not run: the Slack benchmark's harness opens a SQLite store only")
	}
	return p
}

// partInsights: builtin extraction on one core, the POST-to-insights lag, queue drain beside the create
// rate and fairness beside a backlog (both stores), and the evaluation.
func (e *env) partInsights(ctx context.Context) *Part {
	p := &Part{ID: "insights", Title: "Insight extraction (insights benchmarks and evaluation)", Store: "SQLite, PostgreSQL"}
	sz := e.cfg.Sizes
	e.run(ctx, p, goBench{Pkg: "./insights", Bench: "^BenchmarkBuiltin$", CPU: "1", Benchtime: fmt.Sprintf("%dx", sz.Extractions),
		Timeout: 10 * time.Minute}, 0, "BenchmarkBuiltin")
	e.run(ctx, p, goBench{Pkg: "./insights", Bench: "^BenchmarkPipelineLag$", Benchtime: fmt.Sprintf("%dx", sz.LagFeedbacks),
		Timeout: 10 * time.Minute}, 0, "BenchmarkPipelineLag")
	e.run(ctx, p, goBench{Pkg: "./insights", Bench: "^BenchmarkQueueDrain$", Benchtime: fmt.Sprintf("%dx", sz.DrainJobs),
		Env: e.pgEnv(), Timeout: 60 * time.Minute}, sz.DrainJobs, "BenchmarkQueueDrain")
	e.run(ctx, p, goBench{Pkg: "./insights", Bench: "^BenchmarkQueueFairness$", Benchtime: fmt.Sprintf("%dx", sz.FairBacklog),
		Env: e.pgEnv(), Timeout: 60 * time.Minute}, sz.FairBacklog, "BenchmarkQueueFairness")

	g := goBench{Pkg: "./insights", Run: "^TestBuiltinAccuracy$", Verbose: true, Timeout: 5 * time.Minute}
	p.Commands = append(p.Commands, g.command())
	_, logName, runErr := runGoBench(ctx, e.bins, e.logDir, e.baseEnv, g, e.progress)
	sets, err := parseAccuracyFile(logName)
	if err != nil || len(sets) == 0 {
		p.Notes = append(p.Notes, fmt.Sprintf("the evaluation printed no accuracy line (%v); see %s", runErr, logName))
		return p
	}
	if runErr != nil {
		p.Notes = append(p.Notes, "TestBuiltinAccuracy failed; see "+logName)
	}
	// Every evaluation set must meet the target, so the worst set is the figure the targets use.
	worst := sets[0]
	for _, a := range sets {
		p.add(Figure{Key: g.Pkg + ":" + a.Set + ":kind-accuracy", Label: a.Set, Value: a.Kind, Unit: "kind-accuracy", Cmd: p.Commands[len(p.Commands)-1]})
		p.add(Figure{Key: g.Pkg + ":" + a.Set + ":sentiment-accuracy", Label: a.Set, Value: a.Sentiment, Unit: "sentiment-accuracy", Cmd: p.Commands[len(p.Commands)-1]})
		worst.Kind, worst.Sentiment = min(worst.Kind, a.Kind), min(worst.Sentiment, a.Sentiment)
	}
	label := fmt.Sprintf("TestBuiltinAccuracy, worst of %d sets", len(sets))
	p.add(Figure{Key: "./insights:TestBuiltinAccuracy:kind-accuracy", Label: label, Value: worst.Kind, Unit: "kind-accuracy", Cmd: p.Commands[len(p.Commands)-1]})
	p.add(Figure{Key: "./insights:TestBuiltinAccuracy:sentiment-accuracy", Label: label, Value: worst.Sentiment, Unit: "sentiment-accuracy", Cmd: p.Commands[len(p.Commands)-1]})
	return p
}

// partEvents: delivery to one subscriber answering in 1 ms against the change rate in the same run, and the
// p99 of POST /records/feedback with a subscriber answering in 5 s against none, on both stores.
func (e *env) partEvents(ctx context.Context) *Part {
	p := &Part{ID: "events", Title: "Events out (events benchmarks)", Store: "SQLite, PostgreSQL"}
	if e.cfg.PostgresURL == "" {
		p.Notes = append(p.Notes, "no PostgreSQL: the postgres halves are skipped")
	}
	e.run(ctx, p, goBench{Pkg: "./events", Bench: "^BenchmarkDelivery$", Benchtime: "1x", Env: e.pgEnv(), Timeout: 20 * time.Minute},
		0, "BenchmarkDelivery")
	e.run(ctx, p, goBench{Pkg: "./events", Bench: "^BenchmarkSlowSubscriberWrites$", Benchtime: "6x", Env: e.pgEnv(),
		Timeout: 20 * time.Minute}, 0, "BenchmarkSlowSubscriberWrites")
	return p
}
