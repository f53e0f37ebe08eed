package main

import (
	"bufio"
	"io"
	"os"
	"regexp"
	"strconv"
	"strings"
)

// BenchResult is one result line of `go test -bench`: the benchmark's name without the -GOMAXPROCS
// suffix, its iteration count and every reported metric by unit (ns/op, B/op and b.ReportMetric's).
type BenchResult struct {
	Name    string
	Procs   int
	N       int64
	Metrics map[string]float64
	Units   []string // metric units in the order printed
}

// BenchOutput is everything bench reads from one `go test` run.
type BenchOutput struct {
	Results []BenchResult
	Skips   map[string]string // benchmark or test name → the reason it logged with its skip
	Fails   []string          // names of failed benchmarks or tests
	Logs    map[string][]string
}

// Result returns the result named name, if any.
func (o BenchOutput) Result(name string) (BenchResult, bool) {
	for _, r := range o.Results {
		if r.Name == name {
			return r, true
		}
	}
	return BenchResult{}, false
}

var (
	procsSuffix = regexp.MustCompile(`-(\d+)$`)
	// "--- SKIP: BenchmarkImport/postgres" or "--- FAIL: TestX (0.01s)"
	statusLine = regexp.MustCompile(`^\s*--- (SKIP|FAIL|PASS|BENCH): (\S+)`)
	// "=== RUN   TestX": with -v, a test's log lines follow it
	runLine = regexp.MustCompile(`^=== (?:RUN|CONT|NAME)\s+(\S+)`)
)

// ParseBenchOutput reads `go test -bench` output (not -json), with or without -v. Lines it does not know
// are ignored, so the output of tests and the toolchain may be mixed in. Indented lines are the log of the
// benchmark or test named last: with -v a bare name line (or "=== RUN name") comes before its log and its
// "--- SKIP" after it; without -v the "--- BENCH/FAIL" line comes first. A skip's reason is the log line
// nearest its "--- SKIP" line.
func ParseBenchOutput(r io.Reader) (BenchOutput, error) {
	out := BenchOutput{Skips: map[string]string{}, Logs: map[string][]string{}}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	current, pendingSkip := "", false
	for sc.Scan() {
		line := sc.Text()
		if m := statusLine.FindStringSubmatch(line); m != nil {
			current, pendingSkip = benchName(m[2]), false
			switch m[1] {
			case "FAIL":
				out.Fails = append(out.Fails, current)
			case "SKIP":
				if logs := out.Logs[current]; len(logs) > 0 {
					out.Skips[current] = logs[len(logs)-1]
				} else {
					out.Skips[current], pendingSkip = "", true
				}
			}
			continue
		}
		if m := runLine.FindStringSubmatch(line); m != nil {
			current, pendingSkip = m[1], false
			continue
		}
		if strings.HasPrefix(line, "    ") {
			if current == "" {
				continue
			}
			msg := trimLogPrefix(strings.TrimSpace(line))
			out.Logs[current] = append(out.Logs[current], msg)
			if pendingSkip {
				out.Skips[current], pendingSkip = msg, false
			}
			continue
		}
		pendingSkip = false
		if f := strings.Fields(line); len(f) == 1 && strings.HasPrefix(f[0], "Benchmark") {
			current = benchName(f[0]) // -v prints the name alone before the benchmark's log
			continue
		}
		current = ""
		if res, ok := parseResultLine(line); ok {
			out.Results = append(out.Results, res)
			current = res.Name
		}
	}
	return out, sc.Err()
}

// benchName drops the -GOMAXPROCS suffix go test adds to benchmark names; test names keep theirs.
func benchName(s string) string {
	if strings.HasPrefix(s, "Benchmark") {
		return procsSuffix.ReplaceAllString(s, "")
	}
	return s
}

// trimLogPrefix drops the "file_test.go:12: " that t.Log puts before a message.
func trimLogPrefix(s string) string {
	file, rest, ok := strings.Cut(s, ": ")
	if ok && strings.Contains(file, ".go:") && !strings.ContainsAny(file, " \t") {
		return rest
	}
	return s
}

// parseResultLine parses "BenchmarkX/sub-2   500   123 ns/op   4.5 ratio", metric pairs after the count.
func parseResultLine(line string) (BenchResult, bool) {
	f := strings.Fields(line)
	if len(f) < 4 || !strings.HasPrefix(f[0], "Benchmark") || len(f)%2 != 0 {
		return BenchResult{}, false
	}
	n, err := strconv.ParseInt(f[1], 10, 64)
	if err != nil {
		return BenchResult{}, false
	}
	res := BenchResult{Name: f[0], Procs: 1, N: n, Metrics: map[string]float64{}}
	if m := procsSuffix.FindStringSubmatch(f[0]); m != nil {
		res.Procs, _ = strconv.Atoi(m[1])
		res.Name = strings.TrimSuffix(f[0], m[0])
	}
	for i := 2; i+1 < len(f); i += 2 {
		v, err := strconv.ParseFloat(f[i], 64)
		if err != nil {
			return BenchResult{}, false
		}
		res.Metrics[f[i+1]] = v
		res.Units = append(res.Units, f[i+1])
	}
	return res, true
}

// evalAccuracy finds "kind accuracy 0.873, sentiment accuracy 0.812" in the insights evaluation's log.
var evalAccuracy = regexp.MustCompile(`kind accuracy ([0-9.]+), sentiment accuracy ([0-9.]+)`)

// Accuracy is the builtin extractor's score on one evaluation set.
type Accuracy struct {
	Set             string // the subtest that printed it, e.g. TestBuiltinAccuracy/testdata/eval.jsonl
	Kind, Sentiment float64
}

// ParseAccuracy returns the accuracy line of every evaluation set in a `go test -v` log.
func ParseAccuracy(r io.Reader) ([]Accuracy, error) {
	var out []Accuracy
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	set := ""
	for sc.Scan() {
		line := sc.Text()
		if m := runLine.FindStringSubmatch(line); m != nil {
			set = m[1]
			continue
		}
		m := evalAccuracy.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		k, err1 := strconv.ParseFloat(m[1], 64)
		s, err2 := strconv.ParseFloat(m[2], 64)
		if err1 != nil || err2 != nil {
			continue
		}
		out = append(out, Accuracy{Set: set, Kind: k, Sentiment: s})
	}
	return out, sc.Err()
}

func parseAccuracyFile(path string) ([]Accuracy, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ParseAccuracy(f)
}
