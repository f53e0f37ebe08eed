package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"
)

// Config is the command line of `go run ./bench`.
type Config struct {
	Mode         string // quick | full
	Out          string
	PostgresURL  string
	IMAP         imapAccount
	LoadDuration time.Duration
	LoadRate     float64
	Parts        map[string]bool // nil: every part
	Keep         bool
	Commit       string // the commit an exported tree (git archive) came from; "" in a checkout
	Sizes        sizes
}

type imapAccount struct{ Addr, User, Pass string }

// sizes are the workloads of a mode. Full mode uses the sizes the issues name (1,000,000 records,
// 10,000 messages); quick mode is scaled down to finish in about three minutes on two cores.
type sizes struct {
	APICreates, APISearches   int // api benchmarks: b.Loop iterations (a create iteration is a block of 50 requests per arm; the search store is 100k records, fixed)
	InsightCreates            int // rounds of creates from 8 clients with the insight workers on (200 requests per arm a round), on each store
	PairRecords, PairRequests int // the API-versus-bare harness of this command
	PGBulkBatches             int // batches of 1,000 rows
	PGSearchRows, PGSearches  int
	PGDemandLinks             int // links of the PostgreSQL demand listing (10,000 Ideas)
	PGListingRows             int // records of the PostgreSQL listing filters
	SQLiteStoreRows           int // store-level SQLite search; 0 skips it
	SQLiteStoreLoops          int
	CSVRows                   int
	EmailMessages             int
	SlackCommands             int
	Extractions               int
	LagFeedbacks, DrainJobs   int
	LoadSeed                  int   // records imported before the load test
	FairVictim, FairListings  int   // the fairness part: the victim's records, and its listings per phase (100 or more, so that the p99 is not the slowest one)
	FairAttacker              []int // the attacker's record counts, each measured in turn
	FairBacklog               int   // jobs of one workspace queued ahead of the fairness probes
	ConsoleSQLite, ConsolePG  int   // records behind the console's pages on each store
	ConsoleRounds             int   // requests per page
	ErasureRecords            int   // one customer's records erased beside another workspace's writes, on each store
}

var modeSizes = map[string]sizes{
	"quick": {APICreates: 4, InsightCreates: 8, APISearches: 100, PairRecords: 5_000, PairRequests: 200, PGBulkBatches: 5,
		PGSearchRows: 50_000, PGSearches: 100, PGDemandLinks: 100_000, PGListingRows: 100_000, CSVRows: 10_000, EmailMessages: 300, SlackCommands: 300,
		Extractions: 3000, LagFeedbacks: 400, DrainJobs: 5_000, LoadSeed: 5_000,
		FairVictim: 1000, FairListings: 100, FairAttacker: []int{3_000, 10_000}, FairBacklog: 5_000,
		ConsoleSQLite: 10_000, ConsolePG: 20_000, ConsoleRounds: 50, ErasureRecords: 2_000},
	"full": {APICreates: 40, InsightCreates: 40, APISearches: 1000, PairRecords: 100_000, PairRequests: 2000, PGBulkBatches: 50,
		PGSearchRows: 1_000_000, PGSearches: 400, PGDemandLinks: 1_000_000, PGListingRows: 1_000_000, SQLiteStoreRows: 1_000_000, SQLiteStoreLoops: 40,
		CSVRows: 1_000_000, EmailMessages: 10_000, SlackCommands: 5000, Extractions: 50_000,
		LagFeedbacks: 6000, DrainJobs: 100_000, LoadSeed: 100_000,
		FairVictim: 5000, FairListings: 300, FairAttacker: []int{10_000, 45_000}, FairBacklog: 60_000,
		ConsoleSQLite: 100_000, ConsolePG: 1_000_000, ConsoleRounds: 200, ErasureRecords: 10_000},
}

// allParts in the order they run.
var allParts = []string{"api", "pair", "pgstore", "sqlitestore", "csv", "email", "slack", "insights", "fair", "events", "console", "load"}

func parseConfig(args []string) (Config, error) {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	var c Config
	var parts string
	fs.StringVar(&c.Mode, "mode", "quick", "quick (about 3 minutes) or full (the issues' sizes; long)")
	fs.StringVar(&c.Out, "out", "bench/RESULTS.md", "where to write the results; plots go beside it")
	fs.StringVar(&c.PostgresURL, "postgres", os.Getenv("FEEDBRIDGE_TEST_POSTGRES_URL"),
		"PostgreSQL server URL (default $FEEDBRIDGE_TEST_POSTGRES_URL); empty: PostgreSQL parts are not run")
	fs.DurationVar(&c.LoadDuration, "load-duration", 0, "length of the sustained load test (default 20s quick, 10m full)")
	fs.Float64Var(&c.LoadRate, "load-rate", 50, "requests per second of the load test's open-loop generator")
	fs.StringVar(&parts, "parts", "", "comma-separated parts to run (default all): "+strings.Join(allParts, ","))
	fs.BoolVar(&c.Keep, "keep", false, "keep the scratch directory (stores, logs of the daemon)")
	fs.StringVar(&c.Commit, "commit", "", "the commit this tree was exported from, when it is not a git checkout (git archive HEAD)")
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	if fs.NArg() > 0 {
		return c, fmt.Errorf("unexpected arguments: %s", strings.Join(fs.Args(), " "))
	}
	sz, ok := modeSizes[c.Mode]
	if !ok {
		return c, fmt.Errorf("-mode %q: want quick or full", c.Mode)
	}
	c.Sizes = sz
	if c.LoadDuration == 0 {
		c.LoadDuration = map[string]time.Duration{"quick": 20 * time.Second, "full": 10 * time.Minute}[c.Mode]
	}
	if c.LoadDuration < time.Second || c.LoadDuration > 24*time.Hour {
		return c, errors.New("-load-duration: want between 1s and 24h")
	}
	if c.LoadRate <= 0 || c.LoadRate > 5000 {
		return c, errors.New("-load-rate: want more than 0 and at most 5000 requests per second")
	}
	if parts != "" {
		c.Parts = map[string]bool{}
		for _, p := range strings.Split(parts, ",") {
			p = strings.TrimSpace(p)
			if !slices.Contains(allParts, p) {
				return c, fmt.Errorf("-parts: unknown part %q (have %s)", p, strings.Join(allParts, ","))
			}
			c.Parts[p] = true
		}
	}
	c.IMAP = imapAccount{Addr: os.Getenv("FEEDBRIDGE_TEST_IMAP_ADDR"), User: os.Getenv("FEEDBRIDGE_TEST_IMAP_USER"),
		Pass: os.Getenv("FEEDBRIDGE_TEST_IMAP_PASS")}
	return c, nil
}
