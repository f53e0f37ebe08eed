package main

import (
	"encoding/xml"
	"errors"
	"io"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestJudge(t *testing.T) {
	ratio := Target{Op: ">=", Limit: 0.7, Keys: []string{"k"}}
	latency := Target{Op: "<", Limit: 20, Size: 100_000}
	tests := []struct {
		name       string
		t          Target
		f          *Figure
		p          *Part
		wantStatus string
		wantRatio  string
	}{
		{"ratio met", ratio, &Figure{Key: "x:ratio", Value: 0.75}, nil, "met", "ratio 0.75 (bound 0.7)"},
		{"ratio exactly at the bound", ratio, &Figure{Key: "x:ratio", Value: 0.7}, nil, "met", "ratio 0.70 (bound 0.7)"},
		{"ratio missed", ratio, &Figure{Key: "x:ratio", Value: 0.18}, nil, "missed", "ratio 0.18 (bound 0.7)"},
		{"rate over its floor", Target{Op: ">=", Limit: 2000}, &Figure{Key: "x:feedbacks/s", Value: 15000}, nil, "met", "7.50 × bound"},
		{"latency under the bound", latency, &Figure{Value: 3.6, Size: 100_000}, nil, "met", "0.18 of bound"},
		{"latency at the bound is missed", latency, &Figure{Value: 20, Size: 100_000}, nil, "missed", "1.00 of bound"},
		{"smaller than the issue's size", latency, &Figure{Value: 3, Size: 5_000}, nil,
			"met at 5,000 (the issue's size, 100,000, runs in full mode)", "0.15 of bound"},
		{"no bound", Target{}, &Figure{Value: 5}, nil, "reported (no bound)", ""},
		{"part failed", ratio, nil, &Part{Status: "failed: go test failed"}, "failed: go test failed", ""},
		{"part silent", ratio, nil, &Part{Notes: []string{"BenchmarkX printed no result"}}, "not run: BenchmarkX printed no result", ""},
		{"part not selected", ratio, nil, nil, "not run: part not selected", ""},
		{"behaviour, not a benchmark", Target{Note: "a test"}, nil, nil, "not measured here", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			status, r := judge(tc.t, tc.f, tc.p)
			if status != tc.wantStatus || r != tc.wantRatio {
				t.Errorf("judge = %q, %q; want %q, %q", status, r, tc.wantStatus, tc.wantRatio)
			}
		})
	}
}

// TestTargetsCoverIssues keeps the table honest: every target that needs a figure names where it comes from.
func TestTargetsCoverIssues(t *testing.T) {
	seen := map[int]bool{}
	for _, tg := range targets() {
		seen[tg.Issue] = true
		if tg.Note == "" && (len(tg.Keys) == 0 || tg.Part == "") {
			t.Errorf("issue %d %q has neither a figure key and part nor a note", tg.Issue, tg.What)
		}
	}
	for issue := 2; issue <= 7; issue++ {
		if !seen[issue] {
			t.Errorf("no target of issue %d", issue)
		}
	}
}

func TestCommandHidesSecrets(t *testing.T) {
	g := goBench{Pkg: "./connectors/email", Bench: "^BenchmarkIngest$", Benchtime: "1x", Timeout: time.Minute,
		Env: []string{"FEEDBRIDGE_TEST_IMAP_PASS=s3cr3t-pass", "FEEDBRIDGE_TEST_POSTGRES_URL=postgres://u:pgpw@127.0.0.1/db",
			"FEEDBRIDGE_BENCH_MESSAGES=300"}}
	cmd := g.command()
	for _, secret := range []string{"s3cr3t-pass", "pgpw"} {
		if strings.Contains(cmd, secret) {
			t.Errorf("command shows %q: %s", secret, cmd)
		}
	}
	for _, want := range []string{"FEEDBRIDGE_BENCH_MESSAGES=300", "go test -count 1 -run '^$' -v -bench '^BenchmarkIngest$' -benchtime 1x", "./connectors/email"} {
		if !strings.Contains(cmd, want) {
			t.Errorf("command lacks %q: %s", want, cmd)
		}
	}
}

func TestBinArgsMatchArgv(t *testing.T) {
	g := goBench{Pkg: "./connectors/csvimport", Bench: "^BenchmarkImport$", Benchtime: "1x", CPU: "1", Timeout: time.Hour,
		Args: []string{"-bench-rows", "1000"}}
	want := []string{"-test.count=1", "-test.run=^$", "-test.v=true", "-test.bench=^BenchmarkImport$", "-test.benchtime=1x",
		"-test.cpu=1", "-test.timeout=1h0m0s", "-bench-rows", "1000"}
	if got := g.binArgs(); !reflect.DeepEqual(got, want) {
		t.Errorf("binArgs = %q\nwant %q", got, want)
	}
}

func TestChartSVG(t *testing.T) {
	c := chart{Title: "p99 <latency> & more", XLabel: "s", YLabel: "ms", Series: []series{
		{"p50", "#000", []float64{1, 2, math.NaN(), 4, 5}},
		{"empty", "#f00", nil},
	}}
	svg := c.svg()
	dec := xml.NewDecoder(strings.NewReader(svg))
	for {
		if _, err := dec.Token(); err != nil {
			if !errors.Is(err, io.EOF) {
				t.Fatalf("not well-formed XML: %v\n%s", err, svg)
			}
			break
		}
	}
	if !strings.Contains(svg, "p99 &lt;latency&gt; &amp; more") {
		t.Error("title not escaped")
	}
	// The NaN splits the line into two runs, each starting with a move.
	if n := strings.Count(svg, `d="M`) + strings.Count(svg, " M"); n != 2 {
		t.Errorf("%d moves in the paths, want 2 (a gap at the NaN)\n%s", n, svg)
	}
}

func TestNiceMax(t *testing.T) {
	for _, tc := range []struct{ in, want float64 }{
		{0, 1}, {-3, 1}, {math.NaN(), 1}, {0.7, 0.8}, {1, 1}, {1.2, 1.5}, {225.5, 250}, {37.5, 40}, {999, 1000}, {1001, 1500},
	} {
		if got := niceMax(tc.in); math.Abs(got-tc.want) > 1e-9 {
			t.Errorf("niceMax(%g) = %g, want %g", tc.in, got, tc.want)
		}
	}
}

// TestInsightCreateTargets: creates from 8 clients with the insight workers on are held to 0.4 × the bare
// handler on both stores, each read from the part that runs that store's benchmark.
func TestInsightCreateTargets(t *testing.T) {
	want := map[string]string{"SQLite": "api", "PostgreSQL": "pgstore"}
	kind := map[string]string{"SQLite": "sqlite", "PostgreSQL": "postgres"}
	for _, tg := range targets() {
		if len(tg.Keys) == 0 || tg.Keys[0] != "./api:BenchmarkCreateWithInsights/"+kind[tg.Store]+":ratio" {
			continue
		}
		if tg.Issue != 31 || tg.Op != ">=" || tg.Limit != 0.4 || tg.Part != want[tg.Store] {
			t.Errorf("%s target: issue %d, %s %g, part %q", tg.Store, tg.Issue, tg.Op, tg.Limit, tg.Part)
		}
		delete(want, tg.Store)
	}
	for st := range want {
		t.Errorf("no target of creates with insights on %s", st)
	}
}
