package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// TestParseBenchOutputGolden parses real `go test -bench` output, with and without -v, and compares
// everything parsed with the golden JSON beside it.
func TestParseBenchOutputGolden(t *testing.T) {
	for _, name := range []string{"verbose", "plain"} {
		t.Run(name, func(t *testing.T) {
			in, err := os.ReadFile(filepath.Join("testdata", name+".txt"))
			if err != nil {
				t.Fatal(err)
			}
			out, err := ParseBenchOutput(bytes.NewReader(in))
			if err != nil {
				t.Fatal(err)
			}
			got, err := json.MarshalIndent(out, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			golden := filepath.Join("testdata", name+".golden.json")
			if *update {
				if err := os.WriteFile(golden, append(got, '\n'), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test ./bench -update to create it)", err)
			}
			if !bytes.Equal(bytes.TrimSpace(got), bytes.TrimSpace(want)) {
				t.Errorf("parse of %s differs from %s:\n%s", name, golden, got)
			}
		})
	}
}

func TestParseBenchOutputCases(t *testing.T) {
	tests := []struct {
		name      string
		in        string
		results   []BenchResult
		skips     map[string]string
		fails     []string
		logs      map[string][]string
		noResults bool
	}{
		{
			name: "procs suffix of a sub-benchmark whose own name ends in a number",
			in:   "BenchmarkCreate/parallel-4-2   \t 500\t 1606 ns/op\t 485.5 api-req/s\t 0.5627 ratio\n",
			results: []BenchResult{{Name: "BenchmarkCreate/parallel-4", Procs: 2, N: 500,
				Metrics: map[string]float64{"ns/op": 1606, "api-req/s": 485.5, "ratio": 0.5627}, Units: []string{"ns/op", "api-req/s", "ratio"}}},
		},
		{
			name: "-cpu 1 prints no suffix",
			in:   "BenchmarkBuiltin     \t      10\t     19123 ns/op\t   8.89 MB/s\t     52366 feedbacks/s\n",
			results: []BenchResult{{Name: "BenchmarkBuiltin", Procs: 1, N: 10,
				Metrics: map[string]float64{"ns/op": 19123, "MB/s": 8.89, "feedbacks/s": 52366}, Units: []string{"ns/op", "MB/s", "feedbacks/s"}}},
		},
		{
			name: "no ns/op at all",
			in:   "BenchmarkPipelineLag-2   400   171.3 max-lag-ms   5.53 p50-lag-ms\n",
			results: []BenchResult{{Name: "BenchmarkPipelineLag", Procs: 2, N: 400,
				Metrics: map[string]float64{"max-lag-ms": 171.3, "p50-lag-ms": 5.53}, Units: []string{"max-lag-ms", "p50-lag-ms"}}},
		},
		{
			name:      "malformed lines are ignored",
			in:        "BenchmarkX-2 10 5 ns/op 7\nBenchmarkY-2 ten 5 ns/op\nBenchmarkZ-2 10 five ns/op\nBenchmarkW\nok  \tpkg\t0.1s\n",
			noResults: true,
			logs:      map[string][]string{},
		},
		{
			name:      "skip reason with -v: the log comes first",
			in:        "BenchmarkBulk\n    bench_test.go:25: FEEDBRIDGE_TEST_POSTGRES_URL is not set\n--- SKIP: BenchmarkBulk\nPASS\n",
			skips:     map[string]string{"BenchmarkBulk": "FEEDBRIDGE_TEST_POSTGRES_URL is not set"},
			logs:      map[string][]string{"BenchmarkBulk": {"FEEDBRIDGE_TEST_POSTGRES_URL is not set"}},
			noResults: true,
		},
		{
			name:      "skip reason without -v: the log comes after",
			in:        "--- SKIP: BenchmarkImport/postgres\n    bench_test.go:9: no server\nPASS\n",
			skips:     map[string]string{"BenchmarkImport/postgres": "no server"},
			logs:      map[string][]string{"BenchmarkImport/postgres": {"no server"}},
			noResults: true,
		},
		{
			name:      "failure, and the log of a parent benchmark under -v",
			in:        "BenchmarkSearch\n    bench_test.go:90: filled 1000 records in 2s\nBenchmarkFails\n    x_test.go:8: boom\n--- FAIL: BenchmarkFails\nFAIL\n",
			fails:     []string{"BenchmarkFails"},
			logs:      map[string][]string{"BenchmarkSearch": {"filled 1000 records in 2s"}, "BenchmarkFails": {"boom"}},
			noResults: true,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, err := ParseBenchOutput(strings.NewReader(tc.in))
			if err != nil {
				t.Fatal(err)
			}
			if tc.noResults && len(out.Results) != 0 {
				t.Errorf("results = %+v, want none", out.Results)
			}
			if !tc.noResults && !reflect.DeepEqual(out.Results, tc.results) {
				t.Errorf("results = %+v\nwant      %+v", out.Results, tc.results)
			}
			if tc.skips == nil {
				tc.skips = map[string]string{}
			}
			if !reflect.DeepEqual(out.Skips, tc.skips) {
				t.Errorf("skips = %q, want %q", out.Skips, tc.skips)
			}
			if !reflect.DeepEqual(out.Fails, tc.fails) {
				t.Errorf("fails = %q, want %q", out.Fails, tc.fails)
			}
			if tc.logs != nil && !reflect.DeepEqual(out.Logs, tc.logs) {
				t.Errorf("logs = %q, want %q", out.Logs, tc.logs)
			}
		})
	}
}

func TestParseAccuracy(t *testing.T) {
	f, err := os.Open(filepath.Join("testdata", "accuracy.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	got, err := ParseAccuracy(f)
	if err != nil {
		t.Fatal(err)
	}
	want := []Accuracy{
		{"TestBuiltinAccuracy/testdata/eval.jsonl", 0.973, 0.967},
		{"TestBuiltinAccuracy/testdata/holdout.jsonl", 0.928, 0.913},
		{"TestBuiltinAccuracy/testdata/blind.jsonl", 0.875, 0.857},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v\nwant %+v", got, want)
	}
}

func msList(vals ...int) []time.Duration {
	out := make([]time.Duration, len(vals))
	for i, v := range vals {
		out[i] = time.Duration(v) * time.Millisecond
	}
	return out
}

func seq(n int) []time.Duration {
	out := make([]time.Duration, n)
	for i := range out {
		out[i] = time.Duration(i+1) * time.Millisecond
	}
	return out
}

func TestPercentile(t *testing.T) {
	tests := []struct {
		name   string
		sorted []time.Duration
		q      float64
		want   time.Duration
	}{
		{"empty", nil, 0.5, 0},
		{"one value is every quantile", msList(7), 0.99, 7 * time.Millisecond},
		{"one value, lowest quantile", msList(7), 0.001, 7 * time.Millisecond},
		{"p50 of 1..100", seq(100), 0.50, 50 * time.Millisecond},
		{"p95 of 1..100", seq(100), 0.95, 95 * time.Millisecond},
		{"p99 of 1..100", seq(100), 0.99, 99 * time.Millisecond},
		{"p100 of 1..100", seq(100), 1, 100 * time.Millisecond},
		{"p50 of 1..10", seq(10), 0.50, 5 * time.Millisecond},
		{"p95 of 1..10 rounds the rank up", seq(10), 0.95, 10 * time.Millisecond},
		{"p99 of 1..1000", seq(1000), 0.99, 990 * time.Millisecond},
		{"p50 of two values is the lower", msList(1, 9), 0.5, time.Millisecond},
		{"tiny quantile is the minimum", seq(10), 0.0001, time.Millisecond},
		{"zero quantile is the minimum", seq(10), 0, time.Millisecond},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := Percentile(tc.sorted, tc.q); got != tc.want {
				t.Errorf("Percentile(%d values, %g) = %v, want %v", len(tc.sorted), tc.q, got, tc.want)
			}
		})
	}
}

func TestSummarize(t *testing.T) {
	lat := msList(30, 10, 20, 40)
	s := Summarize(lat)
	want := Summary{Count: 4, P50: 20 * time.Millisecond, P95: 40 * time.Millisecond, P99: 40 * time.Millisecond,
		Max: 40 * time.Millisecond, Mean: 25 * time.Millisecond}
	if s != want {
		t.Errorf("Summarize = %+v, want %+v", s, want)
	}
	if !reflect.DeepEqual(lat, msList(10, 20, 30, 40)) {
		t.Errorf("input not sorted in place: %v", lat)
	}
	if (Summarize(nil) != Summary{}) {
		t.Error("Summarize(nil) is not zero")
	}
}

func FuzzParseBenchOutput(f *testing.F) {
	for _, name := range []string{"verbose.txt", "plain.txt", "accuracy.txt"} {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(b))
	}
	f.Add("BenchmarkX-2 1 NaN ratio\n--- SKIP: \n    \n")
	f.Add("Benchmark-1 1 1e309 x/op\n=== RUN\t\n")
	f.Fuzz(func(t *testing.T, in string) {
		out, err := ParseBenchOutput(strings.NewReader(in))
		if err != nil {
			return // a line longer than the scanner's buffer
		}
		for _, r := range out.Results {
			if !strings.HasPrefix(r.Name, "Benchmark") || len(r.Metrics) == 0 || len(r.Units) != len(r.Metrics) && !hasDuplicates(r.Units) {
				t.Errorf("bad result %+v", r)
			}
		}
		if _, err := ParseAccuracy(strings.NewReader(in)); err != nil {
			return
		}
	})
}

func hasDuplicates(s []string) bool {
	seen := map[string]bool{}
	for _, x := range s {
		if seen[x] {
			return true
		}
		seen[x] = true
	}
	return false
}
