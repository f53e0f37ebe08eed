package e2e

import (
	"bufio"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" driver, to inspect a PostgreSQL store
	_ "modernc.org/sqlite"             // the "sqlite" driver, to inspect a SQLite store

	"github.com/feedbridge/feedbridge/store/postgres/pgtest"
)

// crashTrials is how many kill -9 trials a crash test runs: def in a normal run, FEEDBRIDGE_CRASH_TRIALS
// in the long mode (e.g. 100). Under the race detector the default is a quarter of def: that run looks for
// data races in the daemon, the normal run counts the trials.
func crashTrials(t *testing.T, def int) int {
	t.Helper()
	if s := os.Getenv("FEEDBRIDGE_CRASH_TRIALS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			t.Fatalf("FEEDBRIDGE_CRASH_TRIALS=%q is not a positive number", s)
		}
		return n
	}
	if raceBuild {
		return max(def/4, 1)
	}
	return def
}

// raceSlowdown stretches the time limits of eventually when the daemon runs under the race detector, which
// makes it several times slower (SQLite most of all: its engine is Go code, instrumented like the rest).
const raceSlowdown = 3

// eachStore runs fn on a SQLite file and, when FEEDBRIDGE_TEST_POSTGRES_URL is set, on a fresh PostgreSQL
// schema, both at once: most of a trial is waiting on the daemon. storeURL is "" for SQLite (newEnv then
// puts the file in the test's directory).
func eachStore(t *testing.T, fn func(t *testing.T, storeURL string)) {
	t.Run("sqlite", func(t *testing.T) { t.Parallel(); fn(t, "") })
	t.Run("postgres", func(t *testing.T) {
		t.Parallel()
		if os.Getenv(pgtest.EnvURL) == "" {
			t.Skip(pgtest.EnvURL + " is unset: the PostgreSQL half runs where PostgreSQL is available (eval \"$(.ci/postgres.sh)\")")
		}
		fn(t, pgtest.URL(t))
	})
}

// inspector reads (and, to stand in for time passing, edits) the store behind the daemon's back, with the
// same SQL on both stores.
type inspector struct {
	db *sql.DB
	pg bool
}

func (e *env) inspect(storeURL string) *inspector {
	e.t.Helper()
	path := filepath.Join(e.dir, "fb.db")
	if p, ok := strings.CutPrefix(storeURL, "sqlite://"); ok {
		path, storeURL = p, ""
	}
	driver, dsn, pg := "sqlite", "file:"+path+"?_pragma=busy_timeout(10000)", false
	if storeURL != "" {
		u, err := url.Parse(storeURL)
		if err != nil {
			e.t.Fatal(err)
		}
		q := u.Query()
		q.Del("pool_max_conns") // the pool's option, which a plain connection would send to the server
		u.RawQuery = q.Encode()
		driver, dsn, pg = "pgx", u.String(), true
	}
	db, err := sql.Open(driver, dsn)
	if err != nil {
		e.t.Fatal(err)
	}
	db.SetMaxOpenConns(2)
	e.t.Cleanup(func() { db.Close() })
	return &inspector{db: db, pg: pg}
}

// rebind turns ? placeholders into PostgreSQL's $n.
func (in *inspector) rebind(q string) string {
	if !in.pg {
		return q
	}
	var b strings.Builder
	n := 0
	for _, r := range q {
		if r == '?' {
			n++
			fmt.Fprintf(&b, "$%d", n)
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// int runs a query that answers one integer. A store that is briefly busy is retried.
func (in *inspector) int(t *testing.T, q string, args ...any) int {
	t.Helper()
	var n int
	var err error
	for try := 0; try < 20; try++ {
		if err = in.db.QueryRow(in.rebind(q), args...).Scan(&n); err == nil {
			return n
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("%s: %v", q, err)
	return 0
}

// strings runs a query that answers one text column.
func (in *inspector) strings(t *testing.T, q string, args ...any) []string {
	t.Helper()
	rows, err := in.db.Query(in.rebind(q), args...)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		out = append(out, s)
	}
	return out
}

func (in *inspector) exec(t *testing.T, q string, args ...any) {
	t.Helper()
	if _, err := in.db.Exec(in.rebind(q), args...); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
}

// expireLeases makes the leases of a killed process run out now instead of in 30 s (connector leases on
// SQLite) or 15 s (insight job claims), which is what the next daemon would otherwise wait for. It only
// moves the clock forward: the daemon's own takeover of expired leases is what the trial then exercises,
// and the real expiry times are covered by TestTakeover and TestClaimsAfterCrash.
func (in *inspector) expireLeases(t *testing.T) {
	t.Helper()
	past := "0"
	if in.pg {
		past = "now() - interval '1 hour'"
	}
	in.exec(t, "UPDATE leases SET expires_at = "+past)
	in.exec(t, "UPDATE queue_items SET lease_until = "+past+" WHERE state = 'running'")
}

// jitter is a random duration in [lo, hi).
func jitter(lo, hi time.Duration) time.Duration {
	return lo + time.Duration(rand.Int64N(int64(hi-lo)))
}

// metric sums the samples of a Prometheus series whose label text contains every one of labels.
func metric(t *testing.T, d *daemon, name string, labels ...string) float64 {
	t.Helper()
	resp, err := client.Get(d.url("/metrics"))
	if err != nil {
		t.Fatalf("GET /metrics: %v", err)
	}
	defer resp.Body.Close()
	sum := 0.0
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, name) || (len(line) > len(name) && line[len(name)] != '{' && line[len(name)] != ' ') {
			continue
		}
		ok := true
		for _, l := range labels {
			ok = ok && strings.Contains(line, l)
		}
		if !ok {
			continue
		}
		f := strings.Fields(line)
		v, err := strconv.ParseFloat(f[len(f)-1], 64)
		if err == nil {
			sum += v
		}
	}
	return sum
}

// logged counts the daemon's log lines whose message contains msg and whose fields contain every
// key=value of kv.
func (d *daemon) logged(msg string, kv ...string) int {
	n := 0
	for _, l := range d.logLines() {
		m, _ := l["msg"].(string)
		if !strings.Contains(m, msg) {
			continue
		}
		ok := true
		for i := 0; i+1 < len(kv); i += 2 {
			ok = ok && strings.Contains(fmt.Sprint(l[kv[i]]), kv[i+1])
		}
		if ok {
			n++
		}
	}
	return n
}

// eventually polls cond until it holds or within passes.
func eventually(t *testing.T, within time.Duration, what string, cond func() bool) {
	t.Helper()
	if raceBuild {
		within *= raceSlowdown
	}
	deadline := time.Now().Add(within)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %v", what, within)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// status is the status code of a request, 0 when it got no answer.
func status(t *testing.T, method, url, key, body string) int {
	t.Helper()
	req, _ := http.NewRequest(method, url, strings.NewReader(body))
	if key != "" {
		req.Header.Set("x-api-key", key)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := client.Do(req)
	if err != nil {
		return 0
	}
	resp.Body.Close()
	return resp.StatusCode
}

// failing is /readyz's status code and the outside sources it names as failing.
func failing(t *testing.T, d *daemon) (int, []string) {
	t.Helper()
	var body struct{ Failing []string }
	resp := do(t, "GET", d.url("/readyz"), "", "", &body)
	return resp.StatusCode, body.Failing
}

// figures logs a test's measured figures in one greppable line, the source of docs/reliability.md.
func figures(t *testing.T, format string, args ...any) {
	t.Helper()
	t.Logf("FIGURES %s: "+format, append([]any{t.Name()}, args...)...)
}

// configure rewrites the config file with extra sections (connectors, insights), keeping the test's store.
func (e *env) configure(storeURL, extra string) {
	e.t.Helper()
	if storeURL == "" {
		storeURL = "sqlite://" + filepath.Join(e.dir, "fb.db")
	}
	body := fmt.Sprintf("http:\n  listen: 127.0.0.1:0\n  rate_limit: {per_second: 10000, burst: 10000}\n  shutdown_timeout: 20s\nstore:\n  url: %s\nlog: {level: info, format: json}\n%s", storeURL, extra)
	if err := os.WriteFile(e.config, []byte(body), 0o600); err != nil {
		e.t.Fatal(err)
	}
}

// writeFileAtomic makes a file appear whole, as an export job that writes and renames would.
func writeFileAtomic(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.WriteFile(path+".part", data, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(path+".part", path); err != nil {
		t.Fatal(err)
	}
}
