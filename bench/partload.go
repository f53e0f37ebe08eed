package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"
)

// LoadResult is the sustained load test: the whole run, each operation, and every second.
type LoadResult struct {
	Rate              float64
	Duration          time.Duration
	Seeded            int
	SeedTime          time.Duration
	Planned, Answered int
	Errors            map[string]int // by reason
	Overall           Summary
	ByOp              map[string]Summary
	OpErrors          map[string]int
	Seconds           []loadSecond
	RSSStartKB        int
	RSSPeakKB         int
	RSSEndKB          int
	StopTime          time.Duration
	StopErr           string
	Commands          []string
}

// loadSecond is one second of the load, by due time, with the daemon's RSS sampled in that second.
type loadSecond struct {
	Second        int
	Requests      int
	Errors        int
	P50, P95, P99 time.Duration
	RSSKB         int
}

// partLoad builds the real binary, sets up a workspace with its admin CLI on a fresh SQLite store, imports
// seed records with `import csv`, starts `serve`, and drives the open-loop mixed workload at it.
func (e *env) partLoad(ctx context.Context) (*Part, *LoadResult) {
	p := &Part{ID: "load", Title: "Sustained load on the real daemon (this command)", Store: "SQLite"}
	dir := filepath.Join(e.work, "load")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		p.fail("%v", err)
		return p, nil
	}
	bin, err := e.binary(ctx)
	if err != nil {
		p.fail("%v", err)
		return p, nil
	}
	d, err := newDaemon(bin, dir, "")
	if err != nil {
		p.fail("%v", err)
		return p, nil
	}
	res := &LoadResult{Rate: e.cfg.LoadRate, Duration: e.cfg.LoadDuration, Seeded: e.cfg.Sizes.LoadSeed}
	target, err := setupWorkspace(ctx, d, res)
	if err != nil {
		p.fail("setup: %v", err)
		return p, nil
	}
	if err := d.start(ctx); err != nil {
		p.fail("%v", err)
		return p, nil
	}
	res.RSSStartKB, _ = d.rssKB()
	res.Commands = append(res.Commands, "feedbridge --config CFG serve   (SQLite store, builtin insights with 2 workers, rate limit lifted)")
	fmt.Fprintf(e.progress, "bench: load %.0f req/s for %s against %s (pid %d)\n", res.Rate, res.Duration, d.addr, d.cmd.Process.Pid)

	// RSS once a second while the load runs and drains.
	var rssMu sync.Mutex
	rss := map[int]int{}
	start := time.Now()
	stopSampling := make(chan struct{})
	var sampler sync.WaitGroup
	sampler.Add(1)
	go func() {
		defer sampler.Done()
		tick := time.NewTicker(time.Second)
		defer tick.Stop()
		if kb, err := d.rssKB(); err == nil {
			rssMu.Lock()
			rss[0] = kb
			rssMu.Unlock()
		}
		for {
			select {
			case <-stopSampling:
				return
			case now := <-tick.C:
				if kb, err := d.rssKB(); err == nil {
					rssMu.Lock()
					rss[int(now.Sub(start)/time.Second)] = kb
					rssMu.Unlock()
				}
			}
		}
	}()
	samples := runOpenLoop(ctx, target, res.Rate, res.Duration, 512, 42)
	close(stopSampling)
	sampler.Wait()
	res.RSSEndKB, _ = d.rssKB()
	stopTime, stopErr := d.stop()
	res.StopTime = stopTime
	if stopErr != nil {
		res.StopErr = stopErr.Error()
	}
	summarizeLoad(res, samples, rss)
	res.Commands = append(res.Commands, fmt.Sprintf("go run ./bench -mode %s -parts load -load-duration %s -load-rate %g",
		e.cfg.Mode, res.Duration, res.Rate))
	p.Commands = res.Commands
	return p, res
}

// setupWorkspace runs the admin CLI: a business workspace, a key, lookups, and the seed import.
func setupWorkspace(ctx context.Context, d *daemon, res *LoadResult) (*loadTarget, error) {
	var ws struct{ ID string }
	if err := cliJSON(ctx, d, &ws, "workspace", "create", "--name", "Load test", "--plan", "business", "--json"); err != nil {
		return nil, err
	}
	var key struct{ Key string }
	if err := cliJSON(ctx, d, &key, "key", "create", "--workspace", ws.ID, "--name", "load", "--json"); err != nil {
		return nil, err
	}
	t := &loadTarget{base: "http://" + d.addr, key: key.Key}
	var tags, products, users []struct{ ID string }
	if err := cliJSON(ctx, d, &tags, "tag", "add", "--workspace", ws.ID, "Billing", "Mobile", "Export", "SSO", "Performance", "--json"); err != nil {
		return nil, err
	}
	if err := cliJSON(ctx, d, &products, "product", "add", "--workspace", ws.ID, "Web app", "Mobile app", "API", "--json"); err != nil {
		return nil, err
	}
	for _, name := range []string{"Ada Lovelace", "Grace Hopper"} {
		var u []struct{ ID string }
		if err := cliJSON(ctx, d, &u, "user", "add", "--workspace", ws.ID, "--name", name, "--json"); err != nil {
			return nil, err
		}
		users = append(users, u...)
	}
	for _, x := range tags {
		t.tags = append(t.tags, x.ID)
	}
	for _, x := range products {
		t.products = append(t.products, x.ID)
	}
	for _, x := range users {
		t.users = append(t.users, x.ID)
	}
	res.Commands = append(res.Commands, "feedbridge workspace create --name 'Load test' --plan business; key create; tag add (5); product add (3); user add (2)")
	if res.Seeded > 0 {
		csv := filepath.Join(d.dir, "seed.csv")
		if err := writeSeedCSV(csv, res.Seeded); err != nil {
			return nil, err
		}
		start := time.Now()
		var run struct{ Created int }
		if err := cliJSON(ctx, d, &run, "import", "csv", "--workspace", ws.ID, csv, "--json"); err != nil {
			return nil, err
		}
		res.SeedTime = time.Since(start)
		if run.Created != res.Seeded {
			return nil, fmt.Errorf("seed import created %d records, want %d", run.Created, res.Seeded)
		}
		res.Commands = append(res.Commands, fmt.Sprintf("feedbridge import csv --workspace WS seed.csv   (%d generated rows)", res.Seeded))
	}
	return t, nil
}

// cliJSON runs an admin command with --json and decodes the first JSON document on its stdout.
func cliJSON(ctx context.Context, d *daemon, out any, args ...string) error {
	b, err := d.cli(ctx, args...)
	if err != nil {
		return err
	}
	if err := json.NewDecoder(strings.NewReader(string(b))).Decode(out); err != nil {
		return fmt.Errorf("feedbridge %s: decode --json output: %w", strings.Join(args[:2], " "), err)
	}
	return nil
}

func writeSeedCSV(path string, n int) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	fmt.Fprintln(f, "Title,Description,Email")
	for i := 0; i < n; i++ {
		fmt.Fprintf(f, "Seed %d %s,\"%s\",customer%d@firm%d.com\n", i, loadTerms[i%len(loadTerms)],
			loadSentences[i%len(loadSentences)], i%3000, i%400)
	}
	return f.Close()
}

// summarizeLoad fills the totals, the per-operation summaries and the per-second series.
func summarizeLoad(res *LoadResult, samples []loadSample, rss map[int]int) {
	res.Planned = len(samples)
	res.Errors, res.OpErrors, res.ByOp = map[string]int{}, map[string]int{}, map[string]Summary{}
	var all []time.Duration
	byOp := map[string][]time.Duration{}
	perSec := map[int][]time.Duration{}
	secErrs := map[int]int{}
	secReqs := map[int]int{}
	for _, s := range samples {
		sec := int(s.due / time.Second)
		secReqs[sec]++
		if s.err != "" {
			res.Errors[s.err]++
			res.OpErrors[s.op]++
			secErrs[sec]++
			continue
		}
		res.Answered++
		all = append(all, s.latency)
		byOp[s.op] = append(byOp[s.op], s.latency)
		perSec[sec] = append(perSec[sec], s.latency)
	}
	res.Overall = Summarize(all)
	for op, lat := range byOp {
		res.ByOp[op] = Summarize(lat)
	}
	last := int(res.Duration / time.Second)
	for k := range rss {
		last = max(last, k+1)
	}
	for sec := 0; sec < last; sec++ {
		sm := Summarize(perSec[sec])
		ls := loadSecond{Second: sec, Requests: secReqs[sec], Errors: secErrs[sec], P50: sm.P50, P95: sm.P95, P99: sm.P99, RSSKB: rss[sec]}
		res.Seconds = append(res.Seconds, ls)
		res.RSSPeakKB = max(res.RSSPeakKB, rss[sec])
	}
	res.RSSPeakKB = max(res.RSSPeakKB, res.RSSStartKB, res.RSSEndKB)
}

// errorList renders the error reasons, most frequent first.
func (r *LoadResult) errorList() string {
	if len(r.Errors) == 0 {
		return "none"
	}
	type kv struct {
		k string
		v int
	}
	var list []kv
	for k, v := range r.Errors {
		list = append(list, kv{k, v})
	}
	sort.Slice(list, func(i, j int) bool { return list[i].v > list[j].v || list[i].v == list[j].v && list[i].k < list[j].k })
	var parts []string
	for _, x := range list {
		parts = append(parts, fmt.Sprintf("%d × %s", x.v, x.k))
	}
	return strings.Join(parts, "; ")
}
