package e2e

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/emersion/go-imap/v2/imapclient"
)

// ownDovecot starts a Dovecot of the test's own through .ci/dovecot.sh, so that the test may stop and
// start it without disturbing the tests that share the CI's server.
type ownDovecot struct {
	dovecot
	t   *testing.T
	dir string
	cmd *exec.Cmd
}

func startOwnDovecot(t *testing.T) *ownDovecot {
	t.Helper()
	needDovecot(t) // the CI provides Dovecot; without it the test is skipped the same way
	cmd := exec.Command("bash", "../.ci/dovecot.sh")
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "FEEDBRIDGE_TEST_IMAP_ADDR=") {
			env = append(env, kv)
		}
	}
	cmd.Env = env
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("start Dovecot: %v", err)
	}
	o := &ownDovecot{t: t}
	for _, line := range strings.Split(string(out), "\n") {
		k, v, _ := strings.Cut(strings.TrimPrefix(line, "export "), "=")
		v = strings.Trim(v, "'")
		switch k {
		case "FEEDBRIDGE_TEST_IMAP_ADDR":
			o.addr = v
		case "FEEDBRIDGE_TEST_IMAP_USER":
			o.user = v
		case "FEEDBRIDGE_TEST_IMAP_PASS":
			o.pass = v
		case "FEEDBRIDGE_TEST_DOVECOT_DIR":
			o.dir = v
		}
	}
	if o.dir == "" {
		t.Fatalf("dovecot.sh printed no dir: %q", out)
	}
	t.Cleanup(func() {
		if o.cmd != nil {
			o.cmd.Process.Signal(syscall.SIGTERM) // the master takes its children down; SIGKILL would orphan them
			o.cmd.Wait()
		}
		stop := exec.Command("bash", "../.ci/dovecot.sh", "stop")
		stop.Env = append(os.Environ(), "FEEDBRIDGE_TEST_DOVECOT_DIR="+o.dir)
		stop.Run()
	})
	return o
}

// stop ends the server as a crash or a restart would for its clients: every session is cut (Dovecot's
// stop alone leaves running sessions to finish on their own), then the master stops and the port closes.
func (o *ownDovecot) stop() {
	o.t.Helper()
	conf := filepath.Join(o.dir, "dovecot.conf")
	if out, err := exec.Command("doveadm", "-c", conf, "kick", o.user).CombinedOutput(); err != nil {
		o.t.Logf("doveadm kick: %v: %s", err, out)
	}
	pidFile := filepath.Join(o.dir, "pid")
	if o.cmd != nil {
		o.cmd.Process.Signal(syscall.SIGTERM)
		o.cmd.Wait()
		o.cmd = nil
	} else if data, err := os.ReadFile(pidFile); err == nil {
		exec.Command("kill", strings.TrimSpace(string(data))).Run()
	}
	eventually(o.t, 20*time.Second, "Dovecot stops", func() bool {
		c, err := net.Dial("tcp", o.addr)
		if err == nil {
			c.Close()
		}
		return err != nil
	})
}

// start runs the same configuration again on the same port.
func (o *ownDovecot) start() {
	o.t.Helper()
	o.cmd = exec.Command("dovecot", "-F", "-c", filepath.Join(o.dir, "dovecot.conf"))
	if err := o.cmd.Start(); err != nil {
		o.t.Fatal(err)
	}
	eventually(o.t, 20*time.Second, "Dovecot answers", func() bool {
		c, err := imapclient.DialInsecure(o.addr, nil)
		if err != nil {
			return false
		}
		c.Close()
		return true
	})
}

// The IMAP server goes away in the middle of polling and comes back: the connector reports the fault
// (GET /api/connectors, the log, a stale last-success metric), reconnects with backoff without a restart of
// the daemon, and every message, delivered before, during and after the outage, makes one record.
func TestFaultIMAPRestart(t *testing.T) {
	t.Parallel()
	srv := startOwnDovecot(t)
	c := srv.client(t)
	boxes := srv.mailboxes(t, c, "restart", "", "-done")
	e := newEnv(t, "", "")
	ws, key := e.workspace("IMAP restart")
	e.configure("", fmt.Sprintf(`insights: {provider: "off"}
connectors:
  email:
    - {name: flaky, workspace: %s, server: %q, security: none, username: %q, password: %q, mailbox: %q, processed_mailbox: %q, poll_interval: 1s}
`, ws, srv.addr, srv.user, srv.pass, boxes[0], boxes[1]))
	db := e.inspect("")
	sent := 0
	deliver := func(n int) {
		c := srv.client(t)
		for i := 0; i < n; i++ {
			appendMessage(t, c, boxes[0], feedbackMail(fmt.Sprintf("%s-%d", boxes[0], sent), i, false))
		}
		sent += n
	}
	deliver(150)
	d := e.start()
	eventually(t, 30*time.Second, "ingestion starts", func() bool { return db.int(t, "SELECT count(*) FROM records") > 0 })
	down := time.Now()
	srv.stop() // mid-poll, or just after it
	eventually(t, 30*time.Second, "the outage is reported", func() bool {
		cs := connectorStatus(t, d, key, "flaky")
		return cs.State == "error" && cs.LastError != "" && d.logged("email: mailbox poll failed") > 0
	})
	reported := time.Since(down)
	time.Sleep(2 * time.Second)
	srv.start()
	downFor := time.Since(down)
	deliver(50)
	back := time.Now()
	eventually(t, 60*time.Second, "every message ingested after the restart", func() bool {
		return db.int(t, "SELECT count(*) FROM records") >= sent && countMessages(t, srv.client(t), boxes[0]) == 0
	})
	recovered := time.Since(back)
	time.Sleep(time.Second)
	if total, distinct := db.int(t, "SELECT count(*) FROM records"), db.int(t, "SELECT count(DISTINCT title) FROM records"); total != sent || distinct != sent {
		t.Errorf("%d records, %d distinct, want %d", total, distinct, sent)
	}
	if cs := connectorStatus(t, d, key, "flaky"); cs.State != "running" {
		t.Errorf("connector after recovery: %+v", cs)
	}
	if metric(t, d, "feedbridge_email_last_success_timestamp_seconds") < float64(back.Unix()) {
		t.Error("last-success metric did not move after recovery")
	}
	figures(t, "faults=1 down_for=%v reported_after=%v messages=%d recovered_in=%v lost=0 duplicates=0 restarts=0",
		downFor.Round(100*time.Millisecond), reported.Round(100*time.Millisecond), sent, recovered.Round(100*time.Millisecond))
}
