// Package e2e drives the real feedbridge binary: demo start-up, graceful shutdown, crashes and several
// replicas sharing one PostgreSQL. The binary is built once per test run.
package e2e

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

var binary string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "feedbridge-e2e")
	if err != nil {
		panic(err)
	}
	binary = filepath.Join(dir, "feedbridge")
	args := []string{"build", "-o", binary}
	if raceBuild {
		// go test -race: the daemon's own data races are caught too (reported on its stderr, see raceReports).
		args = append(args, "-race")
	}
	build := exec.Command("go", append(args, "../cmd/feedbridge")...)
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "e2e: build feedbridge:", err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// env is one test's configuration: a config file and its store.
type env struct {
	t      *testing.T
	dir    string
	config string
}

func newEnv(t *testing.T, storeURL, extra string) *env {
	t.Helper()
	dir := t.TempDir()
	if storeURL == "" {
		storeURL = "sqlite://" + filepath.Join(dir, "fb.db")
	}
	cfg := filepath.Join(dir, "feedbridge.yaml")
	body := fmt.Sprintf("http:\n  listen: 127.0.0.1:0\n  rate_limit: {per_second: 10000, burst: 10000}\n  shutdown_timeout: 20s\nstore:\n  url: %s\nlog: {level: info, format: json}\n%s", storeURL, extra)
	if err := os.WriteFile(cfg, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return &env{t: t, dir: dir, config: cfg}
}

// cli runs a CLI command and returns stdout; it fails the test on a non-zero exit.
func (e *env) cli(args ...string) string {
	e.t.Helper()
	out, code, stderr := e.cliCode(args...)
	if code != 0 {
		e.t.Fatalf("feedbridge %v: exit %d: %s", args, code, stderr)
	}
	return out
}

func (e *env) cliCode(args ...string) (string, int, string) {
	cmd := exec.Command(binary, append([]string{"--config", e.config}, args...)...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if r := raceReports(errb.String()); r != "" {
		e.t.Errorf("feedbridge %v: data race:\n%s", args, r)
	}
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		e.t.Fatal(err)
	}
	return out.String(), code, errb.String()
}

// workspace creates a business workspace with a key and returns (workspace id, key).
func (e *env) workspace(name string) (string, string) {
	ws := strings.TrimSpace(e.cli("workspace", "create", "--name", name, "--plan", "business"))
	key := strings.TrimSpace(e.cli("key", "create", "--workspace", ws))
	return ws, key
}

// daemon is a running `feedbridge serve`.
type daemon struct {
	cmd    *exec.Cmd
	addr   string
	stdout *syncBuffer
	mu     sync.Mutex
	logs   []map[string]any
	stderr strings.Builder // raw, for the race detector's reports
	read   chan struct{}   // closed when stderr is read to its end
	exited chan struct{}
}

// start runs serve and waits until it listens.
func (e *env) start(args ...string) *daemon {
	e.t.Helper()
	cmd := exec.Command(binary, append([]string{"--config", e.config, "serve"}, args...)...)
	d := &daemon{cmd: cmd, stdout: &syncBuffer{}, read: make(chan struct{}), exited: make(chan struct{})}
	cmd.Stdout = d.stdout
	stderr, err := cmd.StderrPipe()
	if err != nil {
		e.t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		e.t.Fatal(err)
	}
	ready := make(chan string, 1)
	go d.readLogs(stderr, ready)
	go func() { cmd.Wait(); close(d.exited) }()
	e.t.Cleanup(func() {
		d.kill()
		select {
		case <-d.read:
		case <-time.After(5 * time.Second):
		}
		d.mu.Lock()
		defer d.mu.Unlock()
		if r := raceReports(d.stderr.String()); r != "" {
			e.t.Errorf("data race in the daemon:\n%s", r)
		}
	})
	select {
	case d.addr = <-ready:
	case <-d.exited:
		e.t.Fatalf("daemon exited before listening: %v", d.logLines())
	case <-time.After(60 * time.Second):
		e.t.Fatalf("daemon did not listen within 60s: %v", d.logLines())
	}
	return d
}

func (d *daemon) readLogs(r io.Reader, ready chan<- string) {
	defer close(d.read)
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var m map[string]any
		if json.Unmarshal(sc.Bytes(), &m) != nil {
			m = map[string]any{"raw": sc.Text()}
		}
		d.mu.Lock()
		d.logs = append(d.logs, m)
		if raceBuild {
			d.stderr.WriteString(sc.Text() + "\n")
		}
		d.mu.Unlock()
		if m["msg"] == "feedbridge serving" {
			if a, ok := m["addr"].(string); ok {
				select {
				case ready <- a:
				default:
				}
			}
		}
	}
}

// raceReports returns the race detector's reports in a process's stderr, each from its WARNING line to its
// closing line of equals signs, or "" when there are none.
func raceReports(stderr string) string {
	var out []string
	for {
		i := strings.Index(stderr, "WARNING: DATA RACE")
		if i < 0 {
			return strings.Join(out, "\n")
		}
		stderr = stderr[i:]
		end := strings.Index(stderr, "\n==================")
		if end < 0 {
			end = len(stderr)
		}
		out = append(out, stderr[:end])
		stderr = stderr[end:]
		if len(out) == 5 {
			return strings.Join(out, "\n") + "\n(more reports left out)"
		}
	}
}

func (d *daemon) logLines() []map[string]any {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]map[string]any(nil), d.logs...)
}

func (d *daemon) url(path string) string { return "http://" + d.addr + path }

// signal sends sig and waits for the exit.
func (d *daemon) stop(t *testing.T, sig syscall.Signal) int {
	t.Helper()
	d.cmd.Process.Signal(sig)
	select {
	case <-d.exited:
	case <-time.After(60 * time.Second):
		t.Fatalf("daemon did not exit within 60s of %v", sig)
	}
	return d.cmd.ProcessState.ExitCode()
}

func (d *daemon) kill() {
	select {
	case <-d.exited:
	default:
		d.cmd.Process.Kill()
		<-d.exited
	}
}

// syncBuffer is a bytes.Buffer safe to read while exec's copier goroutine writes the child's output.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// waitStdout waits until the daemon's stdout matches re: stdout and stderr arrive through separate pipes,
// so the "serving" log line can be read before the lines printed just before it.
func (d *daemon) waitStdout(t *testing.T, re *regexp.Regexp) string {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if m := re.FindString(d.stdout.String()); m != "" {
			return m
		}
		time.Sleep(20 * time.Millisecond)
	}
	return ""
}

// client bounds every request: a daemon that stops answering fails the test instead of hanging it.
var client = &http.Client{Timeout: 15 * time.Second}

// do sends a request with the key and decodes a JSON answer into out (when non-nil).
func do(t *testing.T, method, url, key, body string, out any) *http.Response {
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
		t.Errorf("%s %s: %v", method, url, err)
		return &http.Response{StatusCode: 0, Header: http.Header{}}
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	if out != nil {
		if err := json.Unmarshal(data, out); err != nil {
			t.Fatalf("%s %s: %d, body not JSON: %s", method, url, resp.StatusCode, data)
		}
	}
	return resp
}
