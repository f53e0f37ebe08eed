package main

import (
	"context"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"time"
)

// Figure is one measured number, with the command that produced it.
type Figure struct {
	Key   string // stable name the targets refer to, e.g. "api.sqlite.create.ratio"
	Label string
	Value float64
	Unit  string
	Size  int // records or messages the figure was measured over; 0 when size does not apply
	Cmd   string
}

// Part is one section of the run: the figures it measured, or why it measured nothing.
type Part struct {
	ID, Title string
	Store     string   // "SQLite", "PostgreSQL" or "" when the part does not use a store
	Status    string   // "" when it ran; "not run: …" or "failed: …" otherwise
	Figures   []Figure // in the order measured
	Notes     []string
	Commands  []string
	Raw       []string // the benchmark result lines as go test printed them
	Elapsed   time.Duration
}

// fail records a failure: the first one is the part's status, later ones become notes.
func (p *Part) fail(format string, a ...any) {
	msg := "failed: " + fmt.Sprintf(format, a...)
	if p.Status == "" {
		p.Status = msg
	} else if msg != p.Status {
		p.Notes = append(p.Notes, msg)
	}
}

func (p *Part) skip(reason string) { p.Status = "not run: " + reason }

// collect copies every metric of every result whose name starts with prefix into figures keyed
// "pkg:name:unit", so that a renamed or added sub-benchmark still shows up. ns/op, B/op, allocs/op and MB/s
// stay in the raw lines only. It returns how many results it found; skips and silence become notes.
func (p *Part) collect(out BenchOutput, pkg, prefix string, size int, cmd string) int {
	found := 0
	for _, r := range out.Results {
		if r.Name != prefix && !strings.HasPrefix(r.Name, prefix+"/") {
			continue
		}
		found++
		line := fmt.Sprintf("%s  N=%d", r.Name, r.N)
		for _, u := range r.Units {
			line += fmt.Sprintf("  %s %s", trimFloat(r.Metrics[u]), u)
			switch u {
			case "ns/op", "B/op", "allocs/op", "MB/s":
				continue
			}
			p.add(Figure{Key: pkg + ":" + r.Name + ":" + u, Label: r.Name, Value: r.Metrics[u], Unit: u, Size: size, Cmd: cmd})
		}
		p.Raw = append(p.Raw, line)
	}
	for _, name := range slices.Sorted(maps.Keys(out.Skips)) {
		if name == prefix || strings.HasPrefix(name, prefix+"/") {
			p.Notes = append(p.Notes, fmt.Sprintf("%s skipped: %s", name, out.Skips[name]))
		}
	}
	if found == 0 && len(out.Skips) == 0 {
		p.Notes = append(p.Notes, fmt.Sprintf("%s printed no result", prefix))
	}
	return found
}

func (p *Part) add(f Figure) { p.Figures = append(p.Figures, f) }

// env is what every part gets: the configuration and where to run and log.
type env struct {
	cfg      Config
	root     string // module root
	logDir   string
	work     string // scratch directory for stores and files
	baseEnv  []string
	progress io.Writer
	bins     *testBinaries
	bin      string // the feedbridge binary, once built
}

// bench runs an existing benchmark, recording its command in p; the error is already in p's status.
func (e *env) bench(ctx context.Context, p *Part, g goBench) (BenchOutput, bool) {
	p.Commands = append(p.Commands, g.command())
	out, logName, err := runGoBench(ctx, e.bins, e.logDir, e.baseEnv, g, e.progress)
	if err != nil {
		fmt.Fprintf(e.progress, "bench:   failed, see %s\n", logName)
		p.fail("%v", err)
		return out, false
	}
	for _, name := range out.Fails {
		reason := ""
		if logs := out.Logs[name]; len(logs) > 0 {
			reason = ": " + logs[len(logs)-1]
		}
		p.Notes = append(p.Notes, name+" failed"+reason)
	}
	return out, true
}

func trimFloat(v float64) string {
	switch {
	case v >= 1000:
		return fmt.Sprintf("%.0f", v)
	case v >= 10:
		return fmt.Sprintf("%.1f", v)
	default:
		return fmt.Sprintf("%.3g", v)
	}
}
