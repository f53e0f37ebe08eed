// Command bench measures feedbridge in one run: it invokes the benchmarks the packages already have
// (go test -bench), compares the API with a bare handler on both stores, and drives a sustained open-loop
// load at the real daemon, then writes RESULTS.md with every figure, its command and the issues' targets.
package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
)

func main() {
	cfg, err := parseConfig(os.Args[1:])
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, cfg, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, cfg Config, progress io.Writer) error {
	root := filepath.Dir(commandOutput(ctx, ".", "go", "env", "GOMOD"))
	if root == "." || root == "" {
		return fmt.Errorf("run from inside the feedbridge module (go env GOMOD is empty)")
	}
	work, err := os.MkdirTemp("", "feedbridge-bench-")
	if err != nil {
		return err
	}
	if cfg.Keep {
		fmt.Fprintf(progress, "bench: scratch directory %s is kept\n", work)
	} else {
		defer os.RemoveAll(work)
	}
	e := &env{cfg: cfg, root: root, logDir: filepath.Join(work, "logs"), work: work, progress: progress,
		bins: &testBinaries{root: root, dir: filepath.Join(work, "bin")}}
	for _, d := range []string{e.logDir, e.bins.dir} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
	}
	start := time.Now()
	rep := &Report{Cfg: cfg, Machine: describeMachine(ctx, root, cfg.Commit), Argv: "go run ./bench " + strings.Join(os.Args[1:], " ")}
	rep.Machine.Postgres = checkPostgres(ctx, &e.cfg)
	rep.Machine.Dovecot = checkIMAP(&e.cfg)
	e.baseEnv = cleanEnv(os.Environ())

	for _, id := range allParts {
		if cfg.Parts != nil && !cfg.Parts[id] {
			continue
		}
		if ctx.Err() != nil {
			break
		}
		t0 := time.Now()
		var ps []*Part
		switch id {
		case "api":
			ps = append(ps, e.partAPI(ctx))
		case "pair":
			for _, kind := range []string{"sqlite", "postgres"} {
				t := time.Now()
				p := e.partPair(ctx, kind)
				p.Elapsed = time.Since(t)
				ps = append(ps, p)
			}
		case "fair":
			for _, kind := range []string{"sqlite", "postgres"} {
				t := time.Now()
				p := e.partFair(ctx, kind)
				p.Elapsed = time.Since(t)
				ps = append(ps, p)
			}
		case "pgstore":
			ps = append(ps, e.partPGStore(ctx))
		case "sqlitestore":
			ps = append(ps, e.partSQLiteStore(ctx))
		case "csv":
			ps = append(ps, e.partCSV(ctx))
		case "email":
			ps = append(ps, e.partEmail(ctx))
			t := time.Now()
			p := e.partEmailDaemon(ctx)
			p.Elapsed = time.Since(t)
			ps = append(ps, p)
		case "slack":
			ps = append(ps, e.partSlack(ctx))
		case "insights":
			ps = append(ps, e.partInsights(ctx))
		case "events":
			ps = append(ps, e.partEvents(ctx))
		case "load":
			p, res := e.partLoad(ctx)
			ps = append(ps, p)
			rep.Load = res
		}
		for _, p := range ps {
			if p.Elapsed == 0 {
				p.Elapsed = time.Since(t0)
			}
			fmt.Fprintf(progress, "bench: part %s done in %s %s\n", p.ID, p.Elapsed.Round(time.Second), p.Status)
		}
		rep.Parts = append(rep.Parts, ps...)
	}
	if ctx.Err() != nil {
		return fmt.Errorf("interrupted; %s not written", cfg.Out)
	}
	rep.Machine.LoadEnd = loadAverage()
	rep.Elapsed = time.Since(start)
	rep.Compiling = e.bins.compiling
	rep.Targets = evaluate(rep.Parts)
	return writeOutputs(rep, cfg.Out, progress)
}

// writeOutputs writes the plots beside RESULTS.md, then RESULTS.md, and prints the targets table.
func writeOutputs(rep *Report, out string, progress io.Writer) error {
	dir := filepath.Dir(out)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if rep.Load != nil && len(rep.Load.Seconds) > 0 {
		lat, mem, traffic := loadCharts(rep.Load)
		for name, c := range map[string]chart{"load-latency.svg": lat, "load-rss.svg": mem, "load-requests.svg": traffic} {
			if err := c.write(filepath.Join(dir, name)); err != nil {
				return err
			}
		}
		rep.Plots = []string{"load-latency.svg", "load-rss.svg", "load-requests.svg"}
	}
	f, err := os.Create(out)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	rep.write(w)
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	for _, t := range rep.Targets {
		v := "—"
		if t.Fig != nil {
			v = trimFloat(t.Fig.Value) + " " + t.Fig.Unit
		}
		fmt.Fprintf(progress, "%-5s %-10s %-70.70s %-22s %s\n", t.label(), t.Store, t.What, v, t.Status)
	}
	fmt.Fprintf(progress, "bench: wrote %s in %s\n", out, rep.Elapsed.Round(time.Second))
	return nil
}

// cleanEnv drops the variables bench sets itself, so a benchmark sees a service only when bench found it.
func cleanEnv(env []string) []string {
	var out []string
	for _, kv := range env {
		if strings.HasPrefix(kv, "FEEDBRIDGE_TEST_") || strings.HasPrefix(kv, "FEEDBRIDGE_BENCH_") {
			continue
		}
		out = append(out, kv)
	}
	return out
}

// checkPostgres asks the server for its version; an unreachable server turns the PostgreSQL parts off.
func checkPostgres(ctx context.Context, cfg *Config) string {
	if cfg.PostgresURL == "" {
		return "not configured (no -postgres, no FEEDBRIDGE_TEST_POSTGRES_URL): PostgreSQL parts not run"
	}
	cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	conn, err := pgx.Connect(cctx, singleConnURL(cfg.PostgresURL))
	if err != nil {
		cfg.PostgresURL = ""
		return "unreachable (" + shortErr(err) + "): PostgreSQL parts not run"
	}
	defer conn.Close(context.Background())
	var v string
	if err := conn.QueryRow(cctx, "SHOW server_version").Scan(&v); err != nil {
		cfg.PostgresURL = ""
		return "unusable (" + shortErr(err) + "): PostgreSQL parts not run"
	}
	return "PostgreSQL " + v + " at " + redactURL(cfg.PostgresURL)
}

// checkIMAP waits for the server's greeting; without one the email part is not run.
func checkIMAP(cfg *Config) string {
	a := cfg.IMAP
	if a.Addr == "" {
		return "not configured (FEEDBRIDGE_TEST_IMAP_ADDR unset): email part not run"
	}
	conn, err := net.DialTimeout("tcp", a.Addr, 5*time.Second)
	if err != nil {
		cfg.IMAP = imapAccount{}
		return "unreachable at " + a.Addr + ": email part not run"
	}
	defer conn.Close()
	_ = conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	line, _ := bufio.NewReader(conn).ReadString('\n')
	if !strings.HasPrefix(line, "* OK") {
		cfg.IMAP = imapAccount{}
		return "no IMAP greeting at " + a.Addr + ": email part not run"
	}
	greeting := strings.TrimSpace(strings.TrimPrefix(line, "* OK"))
	if i := strings.LastIndex(greeting, "] "); i >= 0 { // drop the capability list
		greeting = greeting[i+2:]
	}
	return "IMAP at " + a.Addr + " (" + greeting + ")"
}
