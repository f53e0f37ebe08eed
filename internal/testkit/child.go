package testkit

import (
	"io"
	"os"
	"os/exec"
	"syscall"
	"testing"
)

// The kill -9 trials of the connectors and the CLI run the test binary again as a child process, kill it
// with SIGKILL part-way through its work, and check that a restart loses and repeats nothing. These helpers
// are that harness, once.

// ChildSpec returns the spec a parent passed in the environment variable env, and whether this process
// is such a child; a test that finds one runs its child part and returns.
func ChildSpec(env string) (string, bool) {
	v := os.Getenv(env)
	return v, v != ""
}

// Pipe chooses which output of the child StartChild hands back to read from.
type Pipe int

const (
	NoPipe Pipe = iota
	Stdout
	Stderr
)

// StartChild runs the single test named test of this binary in a child process with env set to spec, and
// returns the child and the chosen output (nil for NoPipe).
func StartChild(t testing.TB, test, env, spec string, pipe Pipe) (*exec.Cmd, io.ReadCloser) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^"+test+"$", "-test.v")
	cmd.Env = append(os.Environ(), env+"="+spec)
	var out io.ReadCloser
	var err error
	switch pipe {
	case Stdout:
		out, err = cmd.StdoutPipe()
	case Stderr:
		out, err = cmd.StderrPipe()
	}
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return cmd, out
}

// Kill9 kills the child with SIGKILL, as a crash or an OOM killer would, and reaps it.
func Kill9(t testing.TB, cmd *exec.Cmd) {
	t.Helper()
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
}
