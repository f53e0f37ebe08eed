package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// goBench is one `go test -bench` invocation of an existing benchmark.
type goBench struct {
	Pkg       string   // ./api
	Bench     string   // -bench pattern
	Benchtime string   // -benchtime, e.g. 300x
	CPU       string   // -cpu, "" for the default
	Run       string   // -run pattern; "" means '^$' (no tests)
	Verbose   bool     // -v, for tests whose log carries the figure
	Env       []string // extra KEY=VALUE
	Args      []string // after -args
	Timeout   time.Duration
}

// command is the shell line that reproduces the run, with passwords (in URLs or in *_PASS variables)
// replaced by "…".
func (g goBench) command() string {
	var parts []string
	for _, kv := range g.Env {
		k, v, _ := strings.Cut(kv, "=")
		if secretVar(k) {
			v = "…"
		}
		parts = append(parts, k+"="+shellQuote(redactURL(v)))
	}
	return strings.Join(append(parts, "go "+strings.Join(quoteAll(g.argv()), " ")), " ")
}

func (g goBench) argv() []string {
	run := g.Run
	if run == "" {
		run = "^$"
	}
	a := []string{"test", "-count", "1", "-run", run}
	if g.Bench != "" {
		// -v: without it go test prints neither a skipped benchmark's reason nor a parent benchmark's log.
		a = append(a, "-v", "-bench", g.Bench, "-benchtime", g.Benchtime)
	}
	if g.CPU != "" {
		a = append(a, "-cpu", g.CPU)
	}
	if g.Verbose && g.Bench == "" {
		a = append(a, "-v")
	}
	a = append(a, "-timeout", g.Timeout.String(), g.Pkg)
	if len(g.Args) > 0 {
		a = append(append(a, "-args"), g.Args...)
	}
	return a
}

// binArgs are argv's flags as the compiled test binary takes them.
func (g goBench) binArgs() []string {
	run := g.Run
	if run == "" {
		run = "^$"
	}
	a := []string{"-test.count=1", "-test.run=" + run}
	if g.Bench != "" {
		a = append(a, "-test.v=true", "-test.bench="+g.Bench, "-test.benchtime="+g.Benchtime)
	}
	if g.CPU != "" {
		a = append(a, "-test.cpu="+g.CPU)
	}
	if g.Verbose && g.Bench == "" {
		a = append(a, "-test.v=true")
	}
	return append(append(a, "-test.timeout="+g.Timeout.String()), g.Args...)
}

// testBinaries compiles each package's tests once per run (go test -c), so that running several of a
// package's benchmarks does not link the binary again each time; running it with binArgs is what
// `go test` with argv does.
type testBinaries struct {
	root, dir string
	built     map[string]string
	compiling time.Duration // spent in go test -c, reported apart from the measuring
}

func (t *testBinaries) get(ctx context.Context, pkg string) (string, error) {
	if bin, ok := t.built[pkg]; ok {
		return bin, nil
	}
	bin := filepath.Join(t.dir, sanitize(pkg)+".test")
	cmd := exec.CommandContext(ctx, "go", "test", "-c", "-o", bin, pkg)
	cmd.Dir = t.root
	start := time.Now()
	out, err := cmd.CombinedOutput()
	t.compiling += time.Since(start)
	if err != nil {
		// Another engineer's package may be mid-edit; name the first compile error, not a wall of them.
		return "", fmt.Errorf("%s does not compile (%w): %s", pkg, err, firstCompileError(string(out)))
	}
	if t.built == nil {
		t.built = map[string]string{}
	}
	t.built[pkg] = bin
	return bin, nil
}

// runGoBench runs g's compiled test binary in its package directory with the given base environment plus
// g.Env, keeps the whole output in logDir, and parses it. A non-zero exit is an error only when nothing
// was measured, since a failing test elsewhere in the run must not hide figures that were printed.
func runGoBench(ctx context.Context, bins *testBinaries, logDir string, baseEnv []string, g goBench, progress io.Writer) (BenchOutput, string, error) {
	fmt.Fprintf(progress, "bench: %s\n", g.command())
	start := time.Now()
	logName := filepath.Join(logDir, sanitize(g.Pkg+"_"+g.Bench+g.Run)+".log")
	bin, err := bins.get(ctx, g.Pkg)
	if err != nil {
		return BenchOutput{}, logName, err
	}
	ctx, cancel := context.WithTimeout(ctx, g.Timeout+time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, g.binArgs()...)
	cmd.Dir = filepath.Join(bins.root, g.Pkg)
	cmd.Env = append(append([]string{}, baseEnv...), g.Env...)
	cmd.WaitDelay = 10 * time.Second
	var buf bytes.Buffer
	cmd.Stdout, cmd.Stderr = &buf, &buf // the same writer: exec serializes the writes
	var runErr error
	stalled := false
	if runErr = cmd.Start(); runErr == nil {
		stop := make(chan struct{})
		watched := make(chan bool, 1)
		go func() { watched <- watchStall(cmd.Process.Pid, stallLimit, stop) }()
		runErr = cmd.Wait()
		close(stop)
		stalled = <-watched
	}
	_ = os.WriteFile(logName, buf.Bytes(), 0o644)
	if stalled {
		return BenchOutput{}, logName, fmt.Errorf("stalled: no CPU time for %s, stopped with SIGQUIT; %s", stallLimit, stallSite(buf.String()))
	}
	fmt.Fprintf(progress, "bench:   %.0fs, output in %s\n", time.Since(start).Seconds(), logName)
	out, err := ParseBenchOutput(bytes.NewReader(buf.Bytes()))
	if err != nil {
		return out, logName, fmt.Errorf("bench: parse %s: %w", logName, err)
	}
	if runErr != nil && len(out.Results) == 0 {
		return out, logName, fmt.Errorf("go test failed (%v): %s", runErr, lastLines(buf.String(), 3))
	}
	return out, logName, nil
}

// lastLines returns the last n non-empty lines of s joined by " / ", for one-line failure reasons.
func lastLines(s string, n int) string {
	var keep []string
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			keep = append(keep, l)
		}
	}
	return strings.Join(keep[max(0, len(keep)-n):], " / ")
}

func sanitize(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_':
			return r
		}
		return '_'
	}, strings.TrimPrefix(s, "./"))
}

// shellQuote quotes s for a POSIX shell when it holds anything but safe characters.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./:=@,", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

func quoteAll(a []string) []string {
	out := make([]string, len(a))
	for i, s := range a {
		out[i] = shellQuote(s)
	}
	return out
}

// secretVar tells whether an environment variable holds a secret by its name.
func secretVar(name string) bool {
	n := strings.ToUpper(name)
	for _, w := range []string{"PASS", "SECRET", "TOKEN", "KEY"} {
		if strings.Contains(n, w) {
			return true
		}
	}
	return false
}

// firstCompileError picks the first "file.go:line:col: message" line of the compiler's output.
func firstCompileError(out string) string {
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, ".go:") {
			return strings.TrimSpace(l)
		}
	}
	return lastLines(out, 2)
}
