package e2e

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/feedbridge/feedbridge/store/postgres/pgtest"
)

// Takeover on PostgreSQL, per connector kind: two replicas share one entry; the holder is killed with
// SIGKILL at a random point of its work (a replacement starts at once, as an orchestrator would), or stops
// on SIGTERM; the time from the signal to another replica's "lease: acquired" is the takeover. In the end
// every message and every row is one record, and the IMAP server never saw two replicas with the mailbox
// selected at once.
func TestTakeover(t *testing.T) {
	t.Parallel()
	if os.Getenv(pgtest.EnvURL) == "" {
		t.Skip(pgtest.EnvURL + " is unset: takeover is measured on PostgreSQL (eval \"$(.ci/postgres.sh)\")")
	}
	for _, kind := range []string{"email", "csv"} {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			takeoverTrials(t, kind)
		})
	}
}

// replicaSet is the daemons of one takeover test, each started from a config file of its own (a mailbox
// entry carries the replica's tag in its password, for the IMAP server's view).
type replicaSet struct {
	t       *testing.T
	e       *env
	lock    string
	entry   func(tag string) string
	storeDB string
	live    []*daemon
	n       int
}

func (rs *replicaSet) start() *daemon {
	rs.t.Helper()
	rs.n++
	tag := fmt.Sprintf("r%d", rs.n)
	e := *rs.e
	e.config = filepath.Join(rs.e.dir, "replica-"+tag+".yaml")
	body := fmt.Sprintf("http:\n  listen: 127.0.0.1:0\n  shutdown_timeout: 20s\nstore:\n  url: %s\nlog: {level: info, format: json}\ninsights: {provider: \"off\"}\nconnectors:\n%s",
		rs.storeDB, rs.entry(tag))
	if err := os.WriteFile(e.config, []byte(body), 0o600); err != nil {
		rs.t.Fatal(err)
	}
	d := e.start()
	rs.live = append(rs.live, d)
	return d
}

// holder is the live replica that holds the lease now, or nil.
func (rs *replicaSet) holder() *daemon {
	for _, d := range rs.live {
		if acquisitions(d, rs.lock) > d.logged("lease: released", "lease", rs.lock) {
			return d
		}
	}
	return nil
}

func (rs *replicaSet) drop(d *daemon) {
	rs.live = slices.DeleteFunc(rs.live, func(x *daemon) bool { return x == d })
}

// acquiredAfter is the earliest "lease: acquired" of the lock, by the log's own clock, on a live replica
// after t0; zero when none yet.
func (rs *replicaSet) acquiredAfter(t0 time.Time) time.Time {
	var first time.Time
	for _, d := range rs.live {
		for _, l := range d.logLines() {
			if l["msg"] != "lease: acquired" || l["lease"] != rs.lock {
				continue
			}
			at, err := time.Parse(time.RFC3339Nano, fmt.Sprint(l["time"]))
			if err == nil && at.After(t0) && (first.IsZero() || at.Before(first)) {
				first = at
			}
		}
	}
	return first
}

func takeoverTrials(t *testing.T, kind string) {
	storeURL := pgtest.URL(t)
	e := newEnv(t, storeURL, "")
	ws, _ := e.workspace("Takeover " + kind)
	db := e.inspect(storeURL)
	rs := &replicaSet{t: t, e: e, storeDB: storeURL}
	var (
		feed  func(trial int)
		want  func() int
		imapS *memIMAP
		inbox = filepath.Join(e.dir, "inbox")
	)
	const rowsPerFile, mailsPerTrial = 400, 4
	switch kind {
	case "email":
		imapS = startIMAP(t)
		rs.lock = "email:box"
		rs.entry = func(tag string) string { return "  email:\n" + imapS.entry("box", ws, tag) }
		sent := 0
		feed = func(trial int) {
			for i := range mailsPerTrial {
				imapS.deliver(t, fmt.Sprintf("takeover %d-%d", trial, i))
				sent++
			}
		}
		want = func() int { return sent }
	case "csv":
		os.MkdirAll(inbox, 0o755)
		rs.lock = "csv:drop"
		rs.entry = func(string) string {
			return fmt.Sprintf("  csv:\n    - {name: drop, workspace: %s, schedule: \"@every 1s\", path: %q, archive_dir: %q}\n",
				ws, filepath.Join(inbox, "*.csv"), filepath.Join(inbox, "done"))
		}
		files := 0
		feed = func(trial int) {
			var b strings.Builder
			b.WriteString("id,title,description\n")
			for i := range rowsPerFile {
				fmt.Fprintf(&b, "%d-%d,row %d-%d,takeover trial %d\n", trial, i, trial, i, trial)
			}
			writeFileAtomic(t, filepath.Join(inbox, fmt.Sprintf("export-%03d.csv", trial)), []byte(b.String()))
			files++
		}
		want = func() int { return files * rowsPerFile }
	}

	rs.start()
	rs.start()
	waitHolder := func() *daemon {
		var h *daemon
		eventually(t, 30*time.Second, "a replica holds "+rs.lock, func() bool { h = rs.holder(); return h != nil })
		return h
	}
	round := 0
	measure := func(sig syscall.Signal, trials int) []float64 {
		var out []float64
		for range trials {
			h := waitHolder()
			round++
			feed(round)
			time.Sleep(jitter(0, 600*time.Millisecond)) // kill at a random point of the work the feed started
			at := time.Now()
			h.cmd.Process.Signal(sig)
			rs.drop(h)
			if sig == syscall.SIGKILL {
				rs.start() // the replacement an orchestrator starts
			}
			var got time.Time
			eventually(t, 30*time.Second, "takeover after "+sig.String(), func() bool { got = rs.acquiredAfter(at); return !got.IsZero() })
			out = append(out, got.Sub(at).Seconds())
			if sig == syscall.SIGTERM {
				<-h.exited
				rs.start()
			}
		}
		return out
	}
	kills := measure(syscall.SIGKILL, crashTrials(t, 20))
	terms := measure(syscall.SIGTERM, crashTrials(t, 10))

	eventually(t, 60*time.Second, "every input recorded", func() bool {
		return db.int(t, "SELECT count(*) FROM records WHERE workspace_id = ?", ws) >= want()
	})
	time.Sleep(2 * time.Second) // a duplicate, were one coming, would land now
	total := db.int(t, "SELECT count(*) FROM records WHERE workspace_id = ?", ws)
	distinct := db.int(t, "SELECT count(DISTINCT title) FROM records WHERE workspace_id = ?", ws)
	if total != want() || distinct != want() {
		t.Errorf("%d records (%d distinct titles) for %d inputs: lost or duplicated", total, distinct, want())
	}
	if imapS != nil {
		if o := imapS.seenOverlaps(); len(o) > 0 {
			t.Errorf("two replicas polled the mailbox at once: %v", o)
		}
		eventually(t, 30*time.Second, "every message moved", func() bool { return imapS.count(t, "INBOX") == 0 })
	}
	// The target is under 1 s; on a loaded 2-core machine (CI runs other packages beside this one) a
	// single trial can lose a few hundred milliseconds to scheduling, so the median must meet it and no
	// trial may take twice as long. The figures report the worst.
	if p := percentile(terms, 50); p >= 1 || slices.Max(terms) >= 2 {
		t.Errorf("SIGTERM handover median %.2fs, worst %.2fs; want under 1 s and 2 s (all: %v)", p, slices.Max(terms), terms)
	}
	if p := percentile(kills, 99); p > 5 {
		t.Errorf("takeover after SIGKILL p99 %.2fs, want at most 5 s (all: %v)", p, kills)
	}
	figures(t, "kind=%s store=postgres sigkill_trials=%d takeover_p50=%.2fs takeover_p99=%.2fs takeover_max=%.2fs sigterm_trials=%d handover_p50=%.3fs handover_max=%.3fs inputs=%d lost=0 duplicates=0 overlaps=0",
		kind, len(kills), percentile(kills, 50), percentile(kills, 99), slices.Max(kills), len(terms), percentile(terms, 50), slices.Max(terms), want())
}

// percentile is the nearest-rank percentile p of xs.
func percentile(xs []float64, p float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	i := int(math.Ceil(p/100*float64(len(s)))) - 1
	return s[max(i, 0)]
}
