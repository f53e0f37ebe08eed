package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestReloadSignalsOnlyALiveDaemon: a pid file that no running daemon holds (here naming an unrelated
// process) is refused and nothing is signalled. Before the fix, reload sent SIGHUP to whatever pid it read,
// which ends a process that does not handle it.
func TestReloadSignalsOnlyALiveDaemon(t *testing.T) {
	cfg := newConfig(t, "")
	other := exec.Command("sleep", "30")
	if err := other.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- other.Wait() }()
	t.Cleanup(func() { other.Process.Kill(); <-done })
	pidFile := filepath.Join(t.TempDir(), "serve.pid")
	if err := os.WriteFile(pidFile, []byte(strconv.Itoa(other.Process.Pid)+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errOut := run(t, cfg, "reload", "--pid-file", pidFile)
	if code != 1 || !strings.Contains(errOut, "stale") {
		t.Fatalf("reload with a stale pid file: exit %d, %s", code, errOut)
	}
	select {
	case err := <-done:
		t.Fatalf("the unrelated process was signalled: %v", err)
	case <-time.After(200 * time.Millisecond):
	}
	if err := other.Process.Signal(syscall.Signal(0)); err != nil {
		t.Fatalf("the unrelated process is gone: %v", err)
	}
}
