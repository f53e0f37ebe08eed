package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// daemon is the real feedbridge binary: its admin CLI on a config file, and `serve` as a child process.
type daemon struct {
	bin, dir, cfg, addr string
	cmd                 *exec.Cmd
	done                chan struct{}
	waitErr             error
}

// buildBinary compiles ./cmd/feedbridge into dir.
func buildBinary(ctx context.Context, root, dir string) (string, error) {
	bin := filepath.Join(dir, "feedbridge")
	cmd := exec.CommandContext(ctx, "go", "build", "-o", bin, "./cmd/feedbridge")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build ./cmd/feedbridge: %w: %s", err, lastLines(string(out), 3))
	}
	return bin, nil
}

// newDaemon writes a config for a fresh SQLite store in dir, listening on a free loopback port.
// Rate limiting is lifted because the load test is one key doing the work of many clients.
func newDaemon(bin, dir, extraYAML string) (*daemon, error) {
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	d := &daemon{bin: bin, dir: dir, cfg: filepath.Join(dir, "feedbridge.yaml"), addr: "127.0.0.1:" + strconv.Itoa(port)}
	yaml := fmt.Sprintf(`http:
  listen: %s
  rate_limit: {per_second: 1000000, burst: 1000000}
store:
  url: sqlite://%s
log: {level: warn, format: text}
insights:
  provider: builtin
  workers: 2
%s`, d.addr, filepath.Join(dir, "feedbridge.db"), extraYAML)
	return d, os.WriteFile(d.cfg, []byte(yaml), 0o600)
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// cli runs one admin command and returns its stdout.
func (d *daemon) cli(ctx context.Context, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, d.bin, append([]string{"--config", d.cfg}, args...)...)
	cmd.Dir = d.dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("feedbridge %s: %w: %s", args[0], err, lastLines(stderr.String(), 2))
	}
	return stdout.Bytes(), nil
}

// start runs `serve` and waits until /readyz answers 200.
func (d *daemon) start(ctx context.Context) error {
	logf, err := os.Create(filepath.Join(d.dir, "serve.log"))
	if err != nil {
		return err
	}
	d.cmd = exec.Command(d.bin, "--config", d.cfg, "serve")
	d.cmd.Dir, d.cmd.Stdout, d.cmd.Stderr = d.dir, logf, logf
	if err := d.cmd.Start(); err != nil {
		logf.Close()
		return err
	}
	d.done = make(chan struct{})
	go func() { d.waitErr = d.cmd.Wait(); logf.Close(); close(d.done) }()
	client := &http.Client{Timeout: time.Second}
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		select {
		case <-d.done:
			return fmt.Errorf("serve exited early (%v): %s", d.waitErr, d.logTail())
		case <-ctx.Done():
			d.stop()
			return ctx.Err()
		default:
		}
		if res, err := client.Get("http://" + d.addr + "/readyz"); err == nil {
			res.Body.Close()
			if res.StatusCode == http.StatusOK {
				return nil
			}
		}
	}
	d.stop()
	return fmt.Errorf("serve not ready within 60s: %s", d.logTail())
}

func (d *daemon) logTail() string {
	b, _ := os.ReadFile(filepath.Join(d.dir, "serve.log"))
	return lastLines(string(b), 3)
}

// rssKB reads the daemon's resident set size from /proc.
func (d *daemon) rssKB() (int, error) {
	if d.cmd == nil || d.cmd.Process == nil {
		return 0, errors.New("not running")
	}
	return readRSS(d.cmd.Process.Pid)
}

func readRSS(pid int) (int, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			return strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(v), " kB"))
		}
	}
	return 0, errors.New("no VmRSS line")
}

// stop sends SIGTERM (the graceful path) and kills the process if it has not exited within 30 s.
// It returns how long the shutdown took and the exit error, if any.
func (d *daemon) stop() (time.Duration, error) {
	if d.cmd == nil || d.cmd.Process == nil {
		return 0, nil
	}
	start := time.Now()
	_ = d.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-d.done:
	case <-time.After(30 * time.Second):
		_ = d.cmd.Process.Kill()
		<-d.done
		return time.Since(start), errors.New("did not stop within 30s of SIGTERM; killed")
	}
	return time.Since(start), d.waitErr
}
