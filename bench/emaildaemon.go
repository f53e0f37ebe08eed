package main

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// partEmailDaemon is the email daemon's memory target, for the daemon: the real binary with
// one connectors.email entry ingests a folder of generated mail from the IMAP server, while its VmRSS is
// sampled every 100 ms; the same folder is first read raw with one FETCH, the floor.
func (e *env) partEmailDaemon(ctx context.Context) *Part {
	p := &Part{ID: "email-daemon", Title: "Email ingestion by the real daemon (this command)", Store: "SQLite"}
	a := e.cfg.IMAP
	if a.Addr == "" || a.User == "" || a.Pass == "" {
		p.skip("no IMAP server: set FEEDBRIDGE_TEST_IMAP_ADDR, _USER and _PASS (eval \"$(.ci/dovecot.sh)\")")
		return p
	}
	n := e.cfg.Sizes.EmailMessages
	cmd := fmt.Sprintf("go run ./bench -mode %s -parts email   (FEEDBRIDGE_TEST_IMAP_* set)", e.cfg.Mode)
	p.Commands = append(p.Commands, cmd)
	t0 := time.Now()
	box, err := newMailbox(a, n)
	if err != nil {
		p.fail("%v", err)
		return p
	}
	defer box.remove()
	p.Notes = append(p.Notes, fmt.Sprintf("appended %d generated messages to a fresh folder in %s", n, time.Since(t0).Round(time.Second)))
	got, rawTime, err := box.rawFetch()
	if err != nil || got != n {
		p.fail("raw fetch read %d of %d messages: %v", got, n, err)
		return p
	}
	dir := filepath.Join(e.work, "email-daemon")
	bin, err := e.binary(ctx)
	if err == nil {
		err = os.MkdirAll(dir, 0o755)
	}
	var d *daemon
	if err == nil {
		d, err = newDaemon(bin, dir, "")
	}
	var ws struct{ ID string }
	if err == nil {
		err = cliJSON(ctx, d, &ws, "workspace", "create", "--name", "Mail", "--plan", "business", "--json")
	}
	if err == nil { // the password stays in a file the config points at, as operators are told to do
		err = os.WriteFile(filepath.Join(dir, "imap-pass"), []byte(a.Pass), 0o600)
	}
	if err == nil {
		d, err = newDaemon(bin, dir, fmt.Sprintf(`connectors:
  email:
    - name: bench-inbox
      workspace: %s
      server: %s
      security: none
      username: %s
      password: file:%s
      mailbox: %s
      poll_interval: 2s
`, ws.ID, a.Addr, a.User, filepath.Join(dir, "imap-pass"), box.name))
	}
	if err == nil {
		err = d.start(ctx)
	}
	if err != nil {
		p.fail("%v", err)
		return p
	}
	start := time.Now()
	rssStart, _ := d.rssKB()
	peak, done, err := waitIngested(ctx, d, n, 30*time.Minute)
	ingest := time.Since(start)
	if _, serr := d.stop(); serr != nil {
		p.Notes = append(p.Notes, "daemon stop: "+serr.Error())
	}
	if err != nil {
		p.fail("after %s, %d of %d messages handled: %v", ingest.Round(time.Second), done, n, err)
		return p
	}
	rawRate, rate := float64(n)/rawTime.Seconds(), float64(n)/ingest.Seconds()
	add := func(key, label string, v float64, unit string) {
		p.add(Figure{Key: "email-daemon." + key, Label: label, Value: v, Unit: unit, Size: n, Cmd: cmd})
	}
	add("raw", "raw FETCH 1:* BODY.PEEK[] of the folder", rawRate, "msgs/s")
	add("ingest", "daemon: from ready to every message handled", rate, "msgs/s")
	add("ratio", "daemon ingestion ÷ raw fetch", rate/rawRate, "ratio")
	add("rss_start", "daemon VmRSS when ready", mib(rssStart), "MiB")
	add("rss_peak", "daemon peak VmRSS while ingesting", mib(peak), "MiB")
	p.Notes = append(p.Notes, "the daemon's time includes its first IMAP connection and login; the raw fetch is one command on an open connection")
	return p
}

// binary builds ./cmd/feedbridge once per run.
func (e *env) binary(ctx context.Context) (string, error) {
	if e.bin != "" {
		return e.bin, nil
	}
	dir := filepath.Join(e.work, "bin")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	bin, err := buildBinary(ctx, e.root, dir)
	if err == nil {
		e.bin = bin
	}
	return bin, err
}

// waitIngested polls the daemon's metrics until the email connector has created, skipped or failed n
// messages, sampling VmRSS at each poll (every 100 ms); it returns the peak RSS in kB.
func waitIngested(ctx context.Context, d *daemon, n int, limit time.Duration) (peakKB, done int, err error) {
	client := &http.Client{Timeout: 5 * time.Second}
	deadline := time.Now().Add(limit)
	for ; ; time.Sleep(100 * time.Millisecond) {
		if kb, err := d.rssKB(); err == nil {
			peakKB = max(peakKB, kb)
		}
		if done, err = emailHandled(client, d.addr); err == nil && done >= n {
			return peakKB, done, nil
		}
		select {
		case <-ctx.Done():
			return peakKB, done, ctx.Err()
		case <-d.done:
			return peakKB, done, fmt.Errorf("daemon exited: %s", d.logTail())
		default:
		}
		if time.Now().After(deadline) {
			return peakKB, done, fmt.Errorf("not done within %s", limit)
		}
	}
}

// emailHandled sums the email connector's created, skipped and failed counters from /metrics.
func emailHandled(client *http.Client, addr string) (int, error) {
	res, err := client.Get("http://" + addr + "/metrics")
	if err != nil {
		return 0, err
	}
	defer res.Body.Close()
	total := 0.0
	sc := bufio.NewScanner(res.Body)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		for _, name := range []string{"feedbridge_email_records_created_total", "feedbridge_email_messages_skipped_total", "feedbridge_email_messages_failed_total"} {
			if strings.HasPrefix(line, name+"{") || strings.HasPrefix(line, name+" ") {
				f := strings.Fields(line)
				if v, err := strconv.ParseFloat(f[len(f)-1], 64); err == nil {
					total += v
				}
			}
		}
	}
	return int(total), sc.Err()
}
