package main

import (
	"fmt"
	"strings"
)

// Target is one figure an issue names, with the bound it must meet.
type Target struct {
	Issue int
	What  string
	Store string
	Part  string   // the part that measures it
	Keys  []string // figure keys, first present wins
	Op    string   // ">=", "<", or "" for a figure the issue asks for without a bound
	Limit float64
	Size  int    // records or messages the issue measures over; 0 when it names none
	Note  string // for targets a benchmark cannot measure
}

// label names the issue of t in the tables.
func (t Target) label() string {
	if t.Issue == 0 {
		return "moves"
	}
	return fmt.Sprintf("#%d", t.Issue)
}

// TargetRow is a target with what this run measured for it.
type TargetRow struct {
	Target
	Fig    *Figure
	Status string
	Ratio  string // measured ÷ bound, or the ratio itself for ratio targets
}

// targets lists every measurable target, in the order RESULTS.md shows them.
func targets() []Target {
	const api, pg, csv = "./api:", "./store/postgres:", "./connectors/csvimport:"
	rows := []Target{
		{Issue: 2, What: "API create throughput ≥ 0.7 × bare INSERT handler (one request at a time)", Store: "SQLite", Part: "api",
			Keys: []string{api + "BenchmarkCreateFeedback/sequential:ratio", api + "BenchmarkCreateFeedback:ratio"}, Op: ">=", Limit: 0.7},
		{Issue: 2, What: "API create throughput ≥ 0.7 × bare INSERT handler (4 in flight)", Store: "SQLite", Part: "api",
			Keys: []string{api + "BenchmarkCreateFeedback/parallel-4:ratio"}, Op: ">=", Limit: 0.7},
		{Issue: 2, What: "the two ratios above over every round's requests pooled, one at a time (no bound; the bound is on the median of the rounds' own ratios)",
			Store: "SQLite", Part: "api", Keys: []string{api + "BenchmarkCreateFeedback/sequential:ratio-pooled"}},
		{Issue: 2, What: "the same, 4 in flight (no bound)", Store: "SQLite", Part: "api",
			Keys: []string{api + "BenchmarkCreateFeedback/parallel-4:ratio-pooled"}},
		{Issue: 2, What: "GET /records?search= p50 < 20 ms over 100k records", Store: "SQLite", Part: "api",
			Keys: []string{api + "BenchmarkSearch:p50-ms", "pair.sqlite.search.api_p50"}, Op: "<", Limit: 20, Size: 100_000},
		{Issue: 2, What: "text search stays fast at a million records (no number given; store-level p50)", Store: "SQLite", Part: "sqlitestore",
			Keys: []string{"./store/sqlite:BenchmarkSearch/ordered:p50-ms"}, Size: 1_000_000},
		{Issue: 3, What: "API create throughput ≥ 0.7 × bare INSERT handler", Store: "PostgreSQL", Part: "pair-postgres",
			Keys: []string{"pair.postgres.create.ratio"}, Op: ">=", Limit: 0.7},
		{Issue: 3, What: "search p50 < 50 ms over 1,000,000 records", Store: "PostgreSQL", Part: "pgstore",
			Keys: []string{pg + "BenchmarkSearch/mixed:p50_ms"}, Op: "<", Limit: 50, Size: 1_000_000},
		{Issue: 3, What: "bulk path ≥ 0.5 × pgx CopyFrom of the same rows", Store: "PostgreSQL", Part: "pgstore",
			Keys: []string{pg + "BenchmarkBulkVsCopy:ratio"}, Op: ">=", Limit: 0.5},
		{Issue: 3, What: "another replica takes over within 60 s after SIGKILL of the leader", Store: "PostgreSQL",
			Note: "a behaviour test, not a benchmark: e2e TestReplicasSharePostgres and store/postgres TestLeasesAcrossReplicas"},
		{Issue: 4, What: "ingestion ≥ 0.5 × raw IMAP fetch of the same messages, 10,000 from Dovecot", Store: "SQLite", Part: "email",
			Keys: []string{"./connectors/email:BenchmarkIngest:ratio"}, Op: ">=", Limit: 0.5, Size: 10_000},
		{Issue: 4, What: "peak memory of the daemon < 100 MB while ingesting (VmRSS of the real binary)", Store: "SQLite", Part: "email-daemon",
			Keys: []string{"email-daemon.rss_peak"}, Op: "<", Limit: 100, Size: 10_000},
		{Issue: 4, What: "peak memory < 100 MB while ingesting (peak heap of the connector's benchmark process)", Store: "SQLite", Part: "email",
			Keys: []string{"./connectors/email:BenchmarkIngest:peak-heap-MB"}, Op: "<", Limit: 100, Size: 10_000},
		{Issue: 5, What: "signed slash command end to end p99 < 50 ms", Store: "SQLite", Part: "slack",
			Keys: []string{"./connectors/slack:BenchmarkSlashCommand/signed-command:p99-ms"}, Op: "<", Limit: 50},
		{Issue: 6, What: "importer ≥ 0.5 × prepared INSERTs in one transaction, 1,000,000 rows", Store: "SQLite", Part: "csv",
			Keys: []string{csv + "BenchmarkImport/sqlite:ratio"}, Op: ">=", Limit: 0.5, Size: 1_000_000},
		{Issue: 6, What: "importer ≥ 0.5 × CopyFrom, 1,000,000 rows", Store: "PostgreSQL", Part: "csv",
			Keys: []string{csv + "BenchmarkImport/postgres:ratio"}, Op: ">=", Limit: 0.5, Size: 1_000_000},
		{Issue: 6, What: "peak memory < 100 MB whatever the file size (peak heap in use)", Store: "SQLite", Part: "csv",
			Keys: []string{csv + "BenchmarkImport/sqlite:peak-heap-MiB"}, Op: "<", Limit: 100, Size: 1_000_000},
		{Issue: 6, What: "peak memory < 100 MB whatever the file size (peak heap in use)", Store: "PostgreSQL", Part: "csv",
			Keys: []string{csv + "BenchmarkImport/postgres:peak-heap-MiB"}, Op: "<", Limit: 100, Size: 1_000_000},
		{Issue: 7, What: "builtin extraction ≥ 2,000 feedbacks/s on one core", Part: "insights",
			Keys: []string{"./insights:BenchmarkBuiltin:feedbacks/s"}, Op: ">=", Limit: 2000},
		{Issue: 7, What: "evaluation: kind accuracy ≥ 0.8", Part: "insights",
			Keys: []string{"./insights:TestBuiltinAccuracy:kind-accuracy"}, Op: ">=", Limit: 0.8},
		{Issue: 7, What: "evaluation: sentiment accuracy ≥ 0.75", Part: "insights",
			Keys: []string{"./insights:TestBuiltinAccuracy:sentiment-accuracy"}, Op: ">=", Limit: 0.75},
		{Issue: 7, What: "end-to-end lag from POST to insights under steady load (no bound given; p50)", Store: "SQLite", Part: "insights",
			Keys: []string{"./insights:BenchmarkPipelineLag:p50-lag-ms"}},
	}
	rows = append(rows, moveTargets()...)
	rows = append(rows, Target{Issue: 28, What: "connection pool ≥ 0.95 × a plain listener (8 clients, keep-alive)", Store: "none", Part: "api",
		Keys: []string{"./daemon:BenchmarkConnPool:pool/plain"}, Op: ">=", Limit: 0.95})
	rows = append(rows, listingTargets()...)
	rows = append(rows, insightCreateTargets()...)
	rows = append(rows, importTargets()...)
	rows = append(rows, fairTargets()...)
	rows = append(rows, eventTargets()...)
	return append(rows, consoleTargets()...)
}

// eventTargets hold events out to its bounds: delivery keeps up with the change rate, and a slow subscriber
// does not move the p99 of a create, on both stores.
func eventTargets() []Target {
	const ev = "./events:"
	var out []Target
	for _, st := range []struct{ kind, name, rate string }{{"sqlite", "SQLite", "500"}, {"postgres", "PostgreSQL", "1,000"}} {
		out = append(out,
			Target{Issue: 27, What: "events delivered/s ≥ changes/s at " + st.rate + " changes/s, subscriber answering in 1 ms (drain ÷ change rate)",
				Store: st.name, Part: "events", Keys: []string{ev + "BenchmarkDelivery/" + st.kind + ":ratio"}, Op: ">=", Limit: 1},
			Target{Issue: 27, What: "events delivered/s ÷ changes/s while both run (no bound; beside the above)", Store: st.name, Part: "events",
				Keys: []string{ev + "BenchmarkDelivery/" + st.kind + ":live-ratio"}},
			Target{Issue: 27, What: "changes/s the writers reached (the rate the two rows above are measured at; asked: " + st.rate + ")",
				Store: st.name, Part: "events", Keys: []string{ev + "BenchmarkDelivery/" + st.kind + ":changes/s"}},
			Target{Issue: 27, What: "POST /records/feedback p99 with a subscriber answering in 5 s ≤ 1.1 × with none (p99 over every round's requests)", Store: st.name,
				Part: "events", Keys: []string{ev + "BenchmarkSlowSubscriberWrites/" + st.kind + ":ratio-pooled"}, Op: "<", Limit: 1.1},
			Target{Issue: 27, What: "the same ratio as the median of the rounds' own ratios (no bound; beside the above)", Store: st.name,
				Part: "events", Keys: []string{ev + "BenchmarkSlowSubscriberWrites/" + st.kind + ":ratio"}},
			Target{Issue: 27, What: "the same p99 with the subscriber's events written but not delivered ÷ with none (no bound: the outbox row alone)",
				Store: st.name, Part: "events", Keys: []string{ev + "BenchmarkSlowSubscriberWrites/" + st.kind + ":outbox-ratio"}})
	}
	return out
}

// consolePages are the pages held to a server time, as BenchmarkPages names them.
var consolePages = []struct{ key, what string }{
	{"inbox", "the inbox"}, {"record", "a record page"}, {"ideas", "ideas"}, {"companies", "companies"}, {"signals", "signals"},
}

// consoleTargets hold each console page's p99 under 100 ms at 100,000 records on SQLite and 1,000,000 on
// PostgreSQL, and the inbox's weight.
func consoleTargets() []Target {
	var out []Target
	for _, st := range []struct {
		kind, name string
		size       int
	}{{"sqlite", "SQLite", 100_000}, {"postgres", "PostgreSQL", 1_000_000}} {
		for _, p := range consolePages {
			out = append(out, Target{Issue: 26, What: fmt.Sprintf("console: %s, p99 < 100 ms (sequential requests, loopback)", p.what),
				Store: st.name, Part: "console", Keys: []string{"./console:BenchmarkPages/" + st.kind + ":" + p.key + "-p99-ms"},
				Op: "<", Limit: 100, Size: st.size})
		}
		out = append(out, Target{Issue: 26, What: "console: the inbox weighs at most 150 KB", Store: st.name, Part: "console",
			Keys: []string{"./console:BenchmarkPages/" + st.kind + ":inbox-KB"}, Op: "<", Limit: 150, Size: st.size})
	}
	return out
}

// listingTargets are those of listings and memory at size: every filter combination of GET /records (over
// 100,000 records on SQLite, 1,000,000 on PostgreSQL, of a realistic shape) and the SQLite store's resident
// memory after reads.
func listingTargets() []Target {
	const lf = "./store/sqlite:BenchmarkListingFilters:"
	return []Target{
		{Issue: 31, What: "every listing filter combination p50 < 20 ms (the slowest of them)", Store: "SQLite", Part: "api",
			Keys: []string{lf + "max-p50-ms"}, Op: "<", Limit: 20, Size: 100_000},
		{Issue: 31, What: "listing by a common tag within a date window p50 < 20 ms", Store: "SQLite", Part: "api",
			Keys: []string{lf + "tag-common+dates:p50-ms"}, Op: "<", Limit: 20, Size: 100_000},
		{Issue: 31, What: "listing by a common tag p50 < 20 ms", Store: "SQLite", Part: "api",
			Keys: []string{lf + "tag-common:p50-ms"}, Op: "<", Limit: 20, Size: 100_000},
		{Issue: 31, What: "resident memory < 150 MiB after a read load (VmRSS of the benchmark process)", Store: "SQLite", Part: "api",
			Keys: []string{"./store/sqlite:BenchmarkReadMemory:rss-MiB"}, Op: "<", Limit: 150, Size: 100_000},
		{Issue: 31, What: "every listing filter combination p50 < 20 ms (the slowest of them)", Store: "PostgreSQL", Part: "pgstore",
			Keys: []string{"./store/postgres:BenchmarkListingFilters:max-p50-ms"}, Op: "<", Limit: 20, Size: 1_000_000},
	}
}

// insightCreateTargets hold POST /records/feedback from 8 clients, with the insight workers on and the
// feedback of a real export's shape, to 0.4 × a bare handler that inserts the row into one table, on both
// stores; beside it, the rate at which the creates' insights are written too.
func insightCreateTargets() []Target {
	var out []Target
	for _, st := range []struct{ kind, name, part string }{{"sqlite", "SQLite", "api"}, {"postgres", "PostgreSQL", "pgstore"}} {
		key := func(unit string) []string {
			return []string{"./api:BenchmarkCreateWithInsights/" + st.kind + ":" + unit}
		}
		out = append(out,
			Target{Issue: 31, What: "POST /records/feedback from 8 clients, insight workers on ≥ 0.4 × a bare one-table INSERT handler",
				Store: st.name, Part: st.part, Keys: key("ratio"), Op: ">=", Limit: 0.4},
			Target{Issue: 31, What: "the same with the insights' catch-up charged to the creates (no bound; beside the above)",
				Store: st.name, Part: st.part, Keys: key("ratio-sustained")})
	}
	return out
}

// importTargets hold the CSV importer to its floor over a file of a real export's shape (BenchmarkImportReal),
// at a million rows on both stores, and to a rate that does not fall as the store grows: the last tenth
// of the rows at least 0.7 × the rate of the first.
func importTargets() []Target {
	const ir = "./connectors/csvimport:BenchmarkImportReal/"
	return []Target{
		{Issue: 31, What: "realistic import ≥ 0.25 × COPY into a table with the same indexes (trigram included)", Store: "PostgreSQL",
			Part: "csv", Keys: []string{ir + "postgres:ratio"}, Op: ">=", Limit: 0.25, Size: 1_000_000},
		{Issue: 31, What: "realistic import: last tenth's rate ≥ 0.7 × the first tenth's", Store: "PostgreSQL",
			Part: "csv", Keys: []string{ir + "postgres:last-tenth-ratio"}, Op: ">=", Limit: 0.7, Size: 1_000_000},
		{Issue: 31, What: "realistic import ≥ 0.5 × prepared INSERTs that also fill the full-text index", Store: "SQLite",
			Part: "csv", Keys: []string{ir + "sqlite:ratio"}, Op: ">=", Limit: 0.5, Size: 1_000_000},
		{Issue: 31, What: "realistic import: last tenth's rate ≥ 0.7 × the first tenth's", Store: "SQLite",
			Part: "csv", Keys: []string{ir + "sqlite:last-tenth-ratio"}, Op: ">=", Limit: 0.7, Size: 1_000_000},
	}
}

// moveTargets are those of records that move, which came without an issue number.
func moveTargets() []Target {
	rows := []Target{
		{What: "PATCH of a status ≥ 0.7 × bare UPDATE … RETURNING handler (4 in flight)", Store: "SQLite", Part: "api",
			Keys: []string{"./api:BenchmarkPatchStatus/sqlite:ratio"}, Op: ">=", Limit: 0.7},
		{What: "PATCH of a status ≥ 0.7 × bare UPDATE … RETURNING handler (4 in flight)", Store: "PostgreSQL", Part: "pgstore",
			Keys: []string{"./api:BenchmarkPatchStatus/postgres:ratio"}, Op: ">=", Limit: 0.7},
		{What: "Ideas by demand p50 (no bound on SQLite; first page of 100)", Store: "SQLite", Part: "api",
			Keys: []string{"./store/sqlite:BenchmarkDemandListing:demand-page1-p50-us"}, Size: 100_000},
		{What: "Ideas by demand p50 < 50 ms, 10,000 ideas and 1,000,000 links (first page of 100)", Store: "PostgreSQL", Part: "pgstore",
			Keys: []string{"./store/postgres:BenchmarkDemandListing:page1-p50-ms"}, Op: "<", Limit: 50, Size: 1_000_000},
		{What: "creates slow by at most 5% against before records that move (with ÷ without their schema objects, one at a time)", Store: "SQLite", Part: "api",
			Keys: []string{"./api:BenchmarkCreateMovesCost/sqlite:ratio"}, Op: ">=", Limit: 0.95},
		{What: "creates slow by at most 5% against before records that move (with ÷ without their schema objects, one at a time)", Store: "PostgreSQL", Part: "pgstore",
			Keys: []string{"./api:BenchmarkCreateMovesCost/postgres:ratio"}, Op: ">=", Limit: 0.95},
	}
	return append(rows, erasureTargets()...)
}

// erasureTargets hold the erasure of one customer's 10,000 records to 10 s, and another workspace's writes
// beside it to 100 ms each, on both stores; beside each bound, the figure of the same run it is read against.
func erasureTargets() []Target {
	var out []Target
	for _, st := range []struct{ pkg, name, part string }{{"./store/sqlite:", "SQLite", "api"}, {"./store/postgres:", "PostgreSQL", "pgstore"}} {
		key := func(unit string) []string { return []string{st.pkg + "BenchmarkErasure:" + unit} }
		out = append(out,
			Target{What: "erasure of a customer's 10,000 records < 10 s (another workspace writing beside it)", Store: st.name, Part: st.part,
				Keys: key("erasure-s"), Op: "<", Limit: 10, Size: 10_000},
			Target{What: "erasure rate ÷ the rate of writing the same records through the bulk path (no bound)", Store: st.name, Part: st.part,
				Keys: key("ratio"), Size: 10_000},
			Target{What: "another workspace's worst write wait during the erasure < 100 ms", Store: st.name, Part: st.part,
				Keys: key("during-worst-ms"), Op: "<", Limit: 100, Size: 10_000},
			Target{What: "the same writes' worst wait without the erasure, as long after it (no bound; the machine's floor for the row above)",
				Store: st.name, Part: st.part, Keys: key("alone-worst-ms"), Size: 10_000})
	}
	return out
}

// fairTargets are the fair shares' targets: a victim's listings beside an attacker's long searches, the queue's drain
// beside the create rate, and a probe's insights beside another workspace's backlog, on both stores.
func fairTargets() []Target {
	const ins = "./insights:"
	var out []Target
	for _, st := range []struct{ kind, name string }{{"sqlite", "SQLite"}, {"postgres", "PostgreSQL"}} {
		part := "fair-" + st.kind
		for _, n := range []int{10_000, 45_000} {
			keys := func(suffix string) []string {
				ks := []string{fmt.Sprintf("fair.%s.%d.%s", st.kind, n, suffix)}
				if n == 45_000 {
					ks = append(ks, fmt.Sprintf("fair.%s.10000.%s", st.kind, suffix))
				}
				return ks
			}
			out = append(out,
				Target{Issue: 18, What: fmt.Sprintf("victim listing p99 ≤ 3 × alone beside 12 attacker loops (%s attacker records)", count(n)),
					Store: st.name, Part: part, Keys: keys("victim_p99_ratio"), Op: "<", Limit: 3, Size: n},
				Target{Issue: 18, What: fmt.Sprintf("victim listing p99 < 100 ms beside 12 attacker loops (%s attacker records)", count(n)),
					Store: st.name, Part: part, Keys: keys("victim_p99"), Op: "<", Limit: 100, Size: n})
		}
		out = append(out,
			Target{Issue: 18, What: "queue drains ≥ 1,000 jobs/s with 100,000 queued (two workers, builtin)", Store: st.name, Part: "insights",
				Keys: []string{ins + "BenchmarkQueueDrain/" + st.kind + ":jobs/s"}, Op: ">=", Limit: 1000, Size: 100_000},
			Target{Issue: 18, What: "create rate in the same run (8 clients, Service.Submit; no bound, beside the drain)", Store: st.name, Part: "insights",
				Keys: []string{ins + "BenchmarkQueueDrain/" + st.kind + ":creates/s"}},
			Target{Issue: 18, What: "another workspace's feedback has insights within 5 s (p99 of 50) beside a 60,000-job backlog", Store: st.name, Part: "insights",
				Keys: []string{ins + "BenchmarkQueueFairness/" + st.kind + ":p99-probe-ms"}, Op: "<", Limit: 5000, Size: 60_000})
	}
	return out
}

// evaluate matches every target to this run's figures.
func evaluate(parts []*Part) []TargetRow {
	figs := map[string]*Figure{}
	byID := map[string]*Part{}
	for _, p := range parts {
		byID[p.ID] = p
		for i := range p.Figures {
			figs[p.Figures[i].Key] = &p.Figures[i]
		}
	}
	var rows []TargetRow
	for _, t := range targets() {
		row := TargetRow{Target: t}
		for _, k := range t.Keys {
			if f, ok := figs[k]; ok {
				row.Fig = f
				break
			}
		}
		row.Status, row.Ratio = judge(t, row.Fig, byID[t.Part])
		rows = append(rows, row)
	}
	return rows
}

func judge(t Target, f *Figure, p *Part) (status, ratio string) {
	if t.Note != "" {
		return "not measured here", ""
	}
	if f == nil {
		switch {
		case p == nil:
			return "not run: part not selected", ""
		case p.Status != "":
			return p.Status, ""
		case len(p.Notes) > 0:
			return "not run: " + p.Notes[0], ""
		}
		return "not run: no figure", ""
	}
	var met bool
	switch t.Op {
	case ">=":
		met = f.Value >= t.Limit
		ratio = fmt.Sprintf("%.2f × bound", f.Value/t.Limit)
		if strings.HasSuffix(f.Key, "ratio") {
			ratio = fmt.Sprintf("ratio %.2f (bound %.2g)", f.Value, t.Limit)
		}
	case "<":
		met = f.Value < t.Limit
		ratio = fmt.Sprintf("%.2f of bound", f.Value/t.Limit)
	default:
		return "reported (no bound)", ""
	}
	status = map[bool]string{true: "met", false: "missed"}[met]
	if t.Size > 0 && f.Size > 0 && f.Size < t.Size {
		status += fmt.Sprintf(" at %s (the issue's size, %s, runs in full mode)", count(f.Size), count(t.Size))
	}
	return status, ratio
}

// count writes n with thousands separators.
func count(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
