package main

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"time"
)

// Report is everything RESULTS.md shows.
type Report struct {
	Cfg       Config
	Machine   Machine
	Argv      string
	Elapsed   time.Duration
	Parts     []*Part
	Targets   []TargetRow
	Load      *LoadResult
	Plots     []string      // file names beside RESULTS.md
	Compiling time.Duration // of Elapsed, spent compiling test binaries
}

func (r *Report) write(w io.Writer) {
	m := r.Machine
	pf := func(format string, a ...any) { fmt.Fprintf(w, format, a...) }
	pf("# feedbridge benchmark results\n\n")
	pf("Produced by `%s` (%s mode) in %s, of which %s compiling test binaries (`go test -c`, once per package;\n",
		r.Argv, r.Cfg.Mode, r.Elapsed.Round(time.Second), r.Compiling.Round(time.Second))
	pf("each benchmark then runs that binary with the flags of the `go test` command shown beside its figures).\n")
	pf("Every figure below was measured in this one run; the ratios compare\n")
	pf("the product with a floor measured in the same benchmark at the same moment, which is what survives a noisy\n")
	pf("machine. Absolute times are only comparable between runs on the same, equally idle machine.\n\n")
	pf("| | |\n|---|---|\n")
	pf("| date (UTC) | %s |\n| commit | %s |\n| Go | %s |\n| CPUs (nproc) | %d × %s |\n| memory | %s |\n| kernel | %s |\n",
		m.Date.Format("2006-01-02 15:04"), m.Commit, m.GoVersion, m.CPUs, m.CPUModel, m.MemTotal, m.Kernel)
	pf("| load average (1/5/15 min) at start | %s |\n| load average at end | %s |\n", m.LoadStart, m.LoadEnd)
	pf("| PostgreSQL | %s |\n| IMAP server | %s |\n\n", m.Postgres, m.Dovecot)
	pf("The machine was shared with other engineers' builds and test runs during this run (see the load average: it\n")
	pf("has %d CPUs), so absolute latencies and rates are pessimistic and noisy; ratios less so, since both arms of\n", m.CPUs)
	pf("each comparison ran interleaved.\n\n")

	pf("## Targets of issues 2–7 and 18, and of records that move\n\n")
	pf("| issue | target | store | measured | vs bound | status |\n|---|---|---|---|---|---|\n")
	for _, t := range r.Targets {
		measured := "—"
		if t.Fig != nil {
			measured = fmt.Sprintf("%s %s", trimFloat(t.Fig.Value), t.Fig.Unit)
			if t.Fig.Size > 0 {
				measured += " over " + count(t.Fig.Size)
			}
		}
		status := t.Status
		if t.Note != "" {
			status += ": " + t.Note
		}
		pf("| %s | %s | %s | %s | %s | %s |\n", t.label(), cell(t.What), orDash(t.Store), cell(measured), orDash(t.Ratio), cell(status))
	}
	pf("\nThe command behind each measured value is in the section of its part below.\n\n")

	if r.Load != nil {
		r.writeLoad(w)
	}
	pf("## Figures by part\n\n")
	for _, p := range r.Parts {
		if p.ID == "load" && r.Load != nil {
			continue
		}
		r.writePart(w, p)
	}
	pf("## Reproduce\n\n")
	pf("```sh\neval \"$(.ci/postgres.sh)\"   # FEEDBRIDGE_TEST_POSTGRES_URL\neval \"$(.ci/dovecot.sh)\"    # FEEDBRIDGE_TEST_IMAP_ADDR, _USER, _PASS\n")
	pf("go run ./bench -mode quick   # about 3 minutes on an idle 2-core machine\ngo run ./bench -mode full    # the issues' sizes: 1,000,000 records, 10,000 messages, 10 minutes of load\n```\n\n")
	pf("`-parts api,pair,pgstore,sqlitestore,csv,email,slack,insights,load` selects parts; `-load-duration` and\n")
	pf("`-load-rate` size the load test; `-postgres URL` overrides the environment. A part whose service is missing\n")
	pf("is reported as not run, never estimated.\n")
}

func (r *Report) writePart(w io.Writer, p *Part) {
	pf := func(format string, a ...any) { fmt.Fprintf(w, format, a...) }
	pf("### %s", p.Title)
	if p.Store != "" {
		pf(" — %s", p.Store)
	}
	pf("\n\n")
	if p.Status != "" {
		pf("**%s**\n\n", p.Status)
	}
	if len(p.Commands) > 0 {
		pf("Commands:\n\n")
		for i, c := range p.Commands {
			pf("%d. `%s`\n", i+1, c)
		}
		pf("\n")
	}
	if len(p.Figures) > 0 {
		pf("| benchmark | metric | value | command |\n|---|---|---|---|\n")
		for _, f := range p.Figures {
			label := f.Label
			if f.Size > 0 {
				label += " (" + count(f.Size) + ")"
			}
			pf("| %s | %s | %s | %s |\n", cell(label), cell(f.Unit), trimFloat(f.Value), commandRef(p.Commands, f.Cmd))
		}
		pf("\n")
	}
	for _, n := range p.Notes {
		pf("- %s\n", n)
	}
	if len(p.Notes) > 0 {
		pf("\n")
	}
	if len(p.Raw) > 0 {
		pf("<details><summary>result lines as go test printed them</summary>\n\n```\n%s\n```\n</details>\n\n", strings.Join(p.Raw, "\n"))
	}
	pf("Took %s.\n\n", p.Elapsed.Round(time.Second))
}

func (r *Report) writeLoad(w io.Writer) {
	l := r.Load
	pf := func(format string, a ...any) { fmt.Fprintf(w, format, a...) }
	pf("## Sustained load test (real daemon, SQLite)\n\n")
	pf("The real binary, set up with its own admin CLI on a fresh SQLite store (%s records imported first with\n", count(l.Seeded))
	pf("`feedbridge import csv` in %s), then `feedbridge serve` with the builtin insight workers, driven from\n", l.SeedTime.Round(time.Second))
	pf("127.0.0.1 by this command's open-loop generator: %.0f requests/s for %s, each request sent at its due\n", l.Rate, l.Duration)
	pf("time whatever happened to earlier ones. Latency counts from the due time, so a stall of the generator or\n")
	pf("the server shows up instead of being hidden. Mix: %s.\n\n", opMix())
	pf("| | |\n|---|---|\n")
	pf("| requests due | %d |\n| answered as expected | %d |\n| errors | %s |\n", l.Planned, l.Answered, cell(l.errorList()))
	pf("| latency p50 / p95 / p99 / max | %.1f / %.1f / %.1f / %.1f ms |\n", ms(l.Overall.P50), ms(l.Overall.P95), ms(l.Overall.P99), ms(l.Overall.Max))
	pf("| daemon RSS at start / peak / end | %.1f / %.1f / %.1f MiB |\n", mib(l.RSSStartKB), mib(l.RSSPeakKB), mib(l.RSSEndKB))
	stop := "clean exit"
	if l.StopErr != "" {
		stop = l.StopErr
	}
	pf("| SIGTERM to exit | %s (%s) |\n\n", l.StopTime.Round(time.Millisecond), cell(stop))
	pf("| operation | answered | errors | p50 ms | p95 ms | p99 ms | max ms |\n|---|---|---|---|---|---|---|\n")
	ops := make([]string, 0, len(loadOps))
	for _, o := range loadOps {
		ops = append(ops, o.name)
	}
	sort.Strings(ops)
	for _, op := range ops {
		s := l.ByOp[op]
		pf("| %s | %d | %d | %.1f | %.1f | %.1f | %.1f |\n", op, s.Count, l.OpErrors[op], ms(s.P50), ms(s.P95), ms(s.P99), ms(s.Max))
	}
	pf("\n")
	for _, p := range r.Plots {
		pf("![%s](%s)\n\n", strings.TrimSuffix(p, ".svg"), p)
	}
	pf("Commands:\n\n")
	for _, c := range l.Commands {
		pf("- `%s`\n", c)
	}
	pf("\n<details><summary>every second: requests due, errors, p50/p95/p99 ms, RSS MiB</summary>\n\n```\n")
	for _, s := range l.Seconds {
		pf("%4d  %4d  %3d  %7.1f %7.1f %7.1f  %6.1f\n", s.Second, s.Requests, s.Errors, ms(s.P50), ms(s.P95), ms(s.P99), mib(s.RSSKB))
	}
	pf("```\n</details>\n\n")
}

func opMix() string {
	var parts []string
	for _, o := range loadOps {
		parts = append(parts, fmt.Sprintf("%d%% %s", o.weight, o.name))
	}
	return strings.Join(parts, ", ")
}

func mib(kb int) float64 { return float64(kb) / 1024 }

// cell makes s safe inside a Markdown table cell.
func cell(s string) string { return strings.ReplaceAll(strings.ReplaceAll(s, "|", `\|`), "\n", " ") }

func orDash(s string) string {
	if s == "" {
		return "—"
	}
	return s
}

// commandRef names the numbered command of a part that produced a figure.
func commandRef(cmds []string, cmd string) string {
	for i, c := range cmds {
		if c == cmd {
			return fmt.Sprintf("%d", i+1)
		}
	}
	return "`" + cell(cmd) + "`"
}
