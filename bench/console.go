package main

import (
	"context"
	"strconv"
	"time"
)

// partConsole: the console's pages through the real server, signed in, over a workspace of ConsoleSQLite
// records on SQLite and ConsolePG on PostgreSQL (console's BenchmarkPages seeds and times them).
func (e *env) partConsole(ctx context.Context) *Part {
	p := &Part{ID: "console", Title: "Console pages at size (console benchmark)", Store: "SQLite, PostgreSQL"}
	sz := e.cfg.Sizes
	env := append(e.pgEnv(), "FEEDBRIDGE_BENCH_PAGES_SQLITE="+strconv.Itoa(sz.ConsoleSQLite),
		"FEEDBRIDGE_BENCH_PAGES_POSTGRES="+strconv.Itoa(sz.ConsolePG), "FEEDBRIDGE_BENCH_PAGES_ROUNDS="+strconv.Itoa(sz.ConsoleRounds))
	out, ok := e.run(ctx, p, goBench{Pkg: "./console", Bench: "^BenchmarkPages$/^sqlite$", Benchtime: "1x", Env: env,
		Timeout: 60 * time.Minute}, sz.ConsoleSQLite, "BenchmarkPages/sqlite")
	if ok {
		p.Notes = append(p.Notes, out.Logs["BenchmarkPages/sqlite"]...)
	}
	if e.cfg.PostgresURL == "" {
		p.Notes = append(p.Notes, "PostgreSQL pages not measured: no PostgreSQL")
		return p
	}
	out, ok = e.run(ctx, p, goBench{Pkg: "./console", Bench: "^BenchmarkPages$/^postgres$", Benchtime: "1x", Env: env,
		Timeout: 90 * time.Minute}, sz.ConsolePG, "BenchmarkPages/postgres")
	if ok {
		p.Notes = append(p.Notes, out.Logs["BenchmarkPages/postgres"]...)
	}
	return p
}
