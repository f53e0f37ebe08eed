package main

import (
	"context"
	"fmt"
	"net/url"
	"path/filepath"
	"time"
)

// partPair measures, request by request and interleaved so both see the same noise, the real API server
// against a bare net/http handler running the same SQL: for list and search the bare handler calls the
// same store method with the same query (so the SQL is identical by construction) and skips auth, rate
// limit, validation and the record shaping; for create on PostgreSQL it is one INSERT into the same
// schema. The api package's own benchmark covers create on SQLite; nothing measured PostgreSQL's API yet.
func (e *env) partPair(ctx context.Context, kind string) *Part {
	p := &Part{ID: "pair-" + kind, Title: "HTTP API against a bare handler, same SQL (this command)", Store: storeName(kind)}
	sz := e.cfg.Sizes
	var storeURL, bareURL string
	switch kind {
	case "sqlite":
		storeURL = "sqlite://" + filepath.Join(e.work, "pair.db")
	case "postgres":
		if e.cfg.PostgresURL == "" {
			p.skip("no PostgreSQL: give -postgres URL or set FEEDBRIDGE_TEST_POSTGRES_URL")
			return p
		}
		var drop1, drop2 func()
		var err error
		if storeURL, drop1, err = pgSchema(ctx, e.cfg.PostgresURL, "fbbench_"); err != nil {
			p.fail("%v", err)
			return p
		}
		defer drop1()
		if bareURL, drop2, err = pgSchema(ctx, e.cfg.PostgresURL, "fbbench_"); err != nil {
			p.fail("%v", err)
			return p
		}
		defer drop2()
	}
	cmd := fmt.Sprintf("go run ./bench -mode %s -parts pair", e.cfg.Mode)
	if kind == "postgres" {
		cmd += " -postgres " + shellQuote(redactURL(e.cfg.PostgresURL))
	}
	p.Commands = append(p.Commands, cmd)
	h, err := newPairHarness(ctx, storeURL)
	if err != nil {
		p.fail("%v", err)
		return p
	}
	defer h.close()
	start := time.Now()
	if err := h.seed(ctx, sz.PairRecords); err != nil {
		p.fail("seed: %v", err)
		return p
	}
	p.Notes = append(p.Notes, fmt.Sprintf("seeded %d feedback records through Service.SubmitBatch in %s", sz.PairRecords, time.Since(start).Round(time.Second)))

	ops := []struct{ name, api, bare string }{
		{"list", "/api/records?record_type=Feedback", "/bare/records"},
		{"search", "/api/records?record_type=Feedback&search=", "/bare/records?search="},
	}
	for _, op := range ops {
		apiLat, bareLat, err := h.interleave(sz.PairRequests, func(i int) (string, string) {
			if op.name != "search" {
				return op.api, op.bare
			}
			t := url.QueryEscape(pairTerms[i%len(pairTerms)])
			return op.api + t, op.bare + t
		})
		if err != nil {
			p.fail("%s: %v", op.name, err)
			return p
		}
		addPairFigures(p, kind, op.name, apiLat, bareLat, sz.PairRecords, cmd)
	}
	if kind == "postgres" {
		bare, err := newBareInsert(ctx, bareURL)
		if err != nil {
			p.fail("bare insert: %v", err)
			return p
		}
		defer bare.close()
		h.mux.Handle("POST /bare/feedback", bare)
		apiLat, bareLat, err := h.interleaveCreate(sz.PairRequests)
		if err != nil {
			p.fail("create: %v", err)
			return p
		}
		addPairFigures(p, kind, "create", apiLat, bareLat, 0, cmd)
		if err := h.addWebhookFigures(ctx, p, kind, sz.PairRequests, cmd); err != nil {
			p.fail("webhook: %v", err)
			return p
		}
	}
	return p
}

func storeName(kind string) string {
	if kind == "postgres" {
		return "PostgreSQL"
	}
	return "SQLite"
}

// pairTerms range from words in most records to words in none, and include a case-folded match.
var pairTerms = []string{"export", "dashboard slow", "STRASSE", "invoice", "zzqx", "login", "webhook", "été"}

func addPairFigures(p *Part, kind, op string, apiLat, bareLat []time.Duration, size int, cmd string) {
	a, b := Summarize(apiLat), Summarize(bareLat)
	key := "pair." + kind + "." + op
	add := func(suffix, label string, v float64, unit string) {
		p.add(Figure{Key: key + "." + suffix, Label: op + ": " + label, Value: v, Unit: unit, Size: size, Cmd: cmd})
	}
	add("api_p50", "API p50", ms(a.P50), "ms")
	add("api_p99", "API p99", ms(a.P99), "ms")
	add("bare_p50", "bare handler p50", ms(b.P50), "ms")
	add("bare_p99", "bare handler p99", ms(b.P99), "ms")
	add("api_rps", "API, one client in sequence", 1/a.Mean.Seconds(), "requests/s")
	add("bare_rps", "bare handler, one client in sequence", 1/b.Mean.Seconds(), "requests/s")
	add("ratio", "throughput, API ÷ bare", b.Mean.Seconds()/a.Mean.Seconds(), "ratio")
}
