package e2e

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

// The pid file cannot be turned against its owner: a link planted where serve writes it is replaced, not
// followed, and `reload` signals only a running feedbridge daemon of this store, never another process whose
// pid someone wrote into the file.
func TestHostilePIDFile(t *testing.T) {
	t.Parallel()
	e := newEnv(t, "", "insights: {provider: \"off\"}\n")
	run := filepath.Join(e.dir, "fb.db.run")
	if err := os.Mkdir(run, 0o700); err != nil {
		t.Fatal(err)
	}
	victim := filepath.Join(e.dir, "victim")
	if err := os.WriteFile(victim, []byte("keep me\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	pidPath := filepath.Join(run, "serve.pid")
	for _, link := range []string{pidPath, pidPath + ".tmp"} {
		if err := os.Symlink(victim, link); err != nil {
			t.Fatal(err)
		}
	}
	d := e.start()
	if got, _ := os.ReadFile(victim); string(got) != "keep me\n" {
		t.Fatalf("serve wrote through a planted link: the victim now holds %q", got)
	}
	if out, code, errOut := e.cliCode("reload"); code != 0 {
		t.Fatalf("reload of the running daemon: exit %d\n%s%s", code, out, errOut)
	}
	d.stop(t, syscall.SIGTERM)

	// Another process's pid in the file: reload refuses and the process lives on.
	sleeper := exec.Command("sleep", "30")
	if err := sleeper.Start(); err != nil {
		t.Fatal(err)
	}
	defer sleeper.Process.Kill()
	os.Remove(pidPath)
	if err := os.WriteFile(pidPath, []byte(strconv.Itoa(sleeper.Process.Pid)+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	out, code, errOut := e.cliCode("reload")
	if code == 0 {
		t.Fatalf("reload signalled a process that is no feedbridge daemon: %s%s", out, errOut)
	}
	exited := make(chan error, 1)
	go func() { exited <- sleeper.Wait() }()
	select {
	case err := <-exited:
		t.Fatalf("the other process ended after reload: %v", err)
	case <-time.After(300 * time.Millisecond):
	}
	if !strings.Contains(out+errOut, "pid") {
		t.Errorf("reload's refusal does not say what is wrong with the pid file: %s%s", out, errOut)
	}
}
