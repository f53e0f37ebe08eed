package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Reloading the real daemon's configuration with SIGHUP: entries added by editing the file start (a CSV
// schedule, a mailbox, a Slack app that answers its first signed command), a removed one stops and gives
// its lease back, untouched ones keep running without a restart, the rate limit changes in place, a broken
// file is refused whole while the old configuration keeps running, and `feedbridge reload` finds the daemon
// through its pid file.
func TestReload(t *testing.T) {
	t.Parallel()
	e := newEnv(t, "", "")
	ws, key := e.workspace("Reload")
	imapSrv := startIMAP(t)
	inbox := func(name string) string {
		dir := filepath.Join(e.dir, name)
		os.MkdirAll(dir, 0o755)
		return dir
	}
	csvEntry := func(name string) string {
		return fmt.Sprintf("    - {name: %s, workspace: %s, schedule: \"@every 1s\", path: %q, archive_dir: %q}\n",
			name, ws, filepath.Join(inbox(name), "*.csv"), filepath.Join(inbox(name), "done"))
	}
	const secret = "e2e-reload-signing-secret"
	slackEntry := fmt.Sprintf("  slack:\n    - {name: s, workspace: %s, signing_secret: %q}\n", ws, secret)
	write := func(extra string) {
		t.Helper()
		e.configure("", extra)
	}
	hup := func(d *daemon, want string) {
		t.Helper()
		before := d.logged(want)
		d.cmd.Process.Signal(syscall.SIGHUP)
		eventually(t, 20*time.Second, "reload outcome "+want, func() bool { return d.logged(want) > before })
	}
	drop := func(name, title string) {
		t.Helper()
		writeFileAtomic(t, filepath.Join(inbox(name), title+".csv"), []byte("title,description\n"+title+",from "+name+"\n"))
	}
	db := e.inspect("")
	titles := func() map[string]bool {
		out := map[string]bool{}
		for _, r := range db.strings(t, "SELECT title FROM records") {
			out[r] = true
		}
		return out
	}

	write("connectors:\n  csv:\n" + csvEntry("a"))
	pidFile := filepath.Join(e.dir, "feedbridge.pid")
	d := e.start("--pid-file", pidFile)
	eventually(t, 20*time.Second, "csv:a running", func() bool { return acquisitions(d, "csv:a") == 1 })

	// Added by editing the file: a second schedule and a mailbox.
	write("connectors:\n  csv:\n" + csvEntry("a") + csvEntry("b") + "  email:\n" + imapSrv.entry("inbox", ws, "r1"))
	hup(d, "reload: configuration applied")
	drop("b", "reload-b-1")
	imapSrv.deliver(t, "reload mail 1")
	eventually(t, 30*time.Second, "the new schedule's file and the new mailbox's message recorded", func() bool {
		got := titles()
		return got["reload-b-1"] && got["reload mail 1"]
	})
	if n := acquisitions(d, "csv:a"); n != 1 || d.logged("lease: released", "lease", "csv:a") != 0 {
		t.Fatalf("the untouched entry restarted: acquired %d times, released %d", n, d.logged("lease: released", "lease", "csv:a"))
	}

	// Removed: its lease is given back and its folder is no longer read.
	write("connectors:\n  csv:\n" + csvEntry("b") + "  email:\n" + imapSrv.entry("inbox", ws, "r1"))
	hup(d, "reload: configuration applied")
	eventually(t, 10*time.Second, "csv:a released", func() bool { return d.logged("lease: released", "lease", "csv:a") == 1 })
	drop("a", "reload-a-after-removal")

	// A broken file is refused whole; every problem is logged; the old configuration keeps running.
	write("connectors:\n  csv:\n" + csvEntry("b") + "    - {name: c, workspace: " + ws + ", schedule: \"every blue moon\", path: /nonexistent/*.csv}\n" +
		"  email:\n" + imapSrv.entry("inbox", ws, "r1") + "insights: {provider: sometimes}\n")
	hup(d, "reload: refused; the running configuration is kept")
	if n := d.logged("reload: problem in the new configuration"); n < 2 {
		t.Errorf("%d problems logged for a file with two, want each named", n)
	}
	if code, fails := failing(t, d); code != 200 || !strings.Contains(strings.Join(fails, ","), "config reload") {
		t.Errorf("/readyz after a refused reload: %d %v, want 200 naming the failed reload", code, fails)
	}
	if v := metric(t, d, "feedbridge_config_last_reload_successful"); v != 0 {
		t.Errorf("feedbridge_config_last_reload_successful = %v after a refused reload", v)
	}
	drop("b", "reload-b-2")
	imapSrv.deliver(t, "reload mail 2")
	eventually(t, 30*time.Second, "the old configuration still importing", func() bool {
		got := titles()
		return got["reload-b-2"] && got["reload mail 2"]
	})

	// A Slack app added by reload answers its first signed command; the rate limit changes in place; a
	// new listen address is named as needing a restart. This time through `feedbridge reload`.
	extra := "connectors:\n  csv:\n" + csvEntry("b") + "  email:\n" + imapSrv.entry("inbox", ws, "r1") + slackEntry
	body := fmt.Sprintf("http:\n  listen: 127.0.0.1:1\n  rate_limit: {per_second: 1, burst: 3}\nstore:\n  url: sqlite://%s\nlog: {level: info, format: json}\n%s",
		filepath.Join(e.dir, "fb.db"), extra)
	if err := os.WriteFile(e.config, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	before := d.logged("reload: configuration applied")
	e.cli("reload", "--pid-file", pidFile)
	eventually(t, 20*time.Second, "the reload applied", func() bool { return d.logged("reload: configuration applied") > before })
	resp, err := client.Do(slackRequest(d, secret, time.Now(), "jane@acme.com Dark mode | please"))
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("first signed command to the Slack app added by reload: %v %v", resp, err)
	}
	resp.Body.Close()
	eventually(t, 10*time.Second, "the Slack command's record", func() bool { return titles()["Dark mode"] })
	if r := do(t, "GET", d.url("/api/records/verify"), key, "", nil); r.Header.Get("X-RateLimit-Limit") != "3" {
		t.Errorf("X-RateLimit-Limit = %q after the reload, want 3", r.Header.Get("X-RateLimit-Limit"))
	}
	if d.logged("reload: these settings changed", "settings", "http.listen") != 1 {
		t.Error("the changed listen address was not named as needing a restart")
	}
	if code, fails := failing(t, d); code != 200 || len(fails) != 0 {
		t.Errorf("/readyz after a good reload: %d %v", code, fails)
	}
	if v := metric(t, d, "feedbridge_config_last_reload_successful"); v != 1 {
		t.Errorf("feedbridge_config_last_reload_successful = %v after a good reload", v)
	}
	if v := metric(t, d, "feedbridge_config_reloads_total", `result="refused"`); v != 1 {
		t.Errorf("refused reloads counted %v, want 1", v)
	}
	if titles()["reload-a-after-removal"] {
		t.Error("the removed schedule still imported")
	}
	if o := imapSrv.seenOverlaps(); len(o) > 0 {
		t.Errorf("mailbox polled twice at once: %v", o)
	}
	if code := d.stop(t, syscall.SIGTERM); code != 0 {
		t.Errorf("exit code %d", code)
	}
	if _, err := os.Stat(pidFile); !os.IsNotExist(err) {
		t.Errorf("pid file left behind: %v", err)
	}
}
