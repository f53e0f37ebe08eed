package daemon

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

func TestDefaultPIDFileBesideTheStore(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "fb.db")
	path, err := DefaultPIDFile("sqlite://" + db)
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(db+".run", "serve.pid"); path != want {
		t.Fatalf("DefaultPIDFile = %s, want %s", path, want)
	}
	pf, err := writePIDFile(path)
	if err != nil {
		t.Fatal(err)
	}
	defer pf.remove()
	fi, err := os.Stat(filepath.Dir(path))
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o700 {
		t.Errorf("pid folder mode %o, want 0700", fi.Mode().Perm())
	}
	t.Setenv("XDG_RUNTIME_DIR", dir)
	pg, err := DefaultPIDFile("postgres://u@h/db")
	if err != nil || !strings.HasPrefix(pg, filepath.Join(dir, "feedbridge")+string(os.PathSeparator)) {
		t.Errorf("postgres pid file = %s, %v; want under the runtime folder", pg, err)
	}
}

// TestPIDFileNeverFollowsPlantedLinks plants links where the daemon writes: the file they point at must
// stay untouched, whatever the name. Before the fix, a link at PATH.tmp was written through.
func TestPIDFileNeverFollowsPlantedLinks(t *testing.T) {
	for _, planted := range []string{"serve.pid", "serve.pid.tmp"} {
		t.Run(planted, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "run")
			if err := os.Mkdir(dir, 0o700); err != nil {
				t.Fatal(err)
			}
			victim := filepath.Join(t.TempDir(), "victim")
			if err := os.WriteFile(victim, []byte("precious\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(victim, filepath.Join(dir, planted)); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(dir, "serve.pid")
			pf, err := writePIDFile(path)
			if err != nil {
				t.Fatal(err)
			}
			defer pf.remove()
			if b, _ := os.ReadFile(victim); string(b) != "precious\n" {
				t.Fatalf("the planted link's target was written: %q", b)
			}
			fi, err := os.Lstat(path)
			if err != nil || !fi.Mode().IsRegular() {
				t.Fatalf("pid file is not a regular file: %v %v", fi, err)
			}
		})
	}
}

func TestPIDFileRefusesSharedFolder(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "shared")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	if _, err := writePIDFile(filepath.Join(dir, "serve.pid")); err == nil || !strings.Contains(err.Error(), "writable by other users") {
		t.Fatalf("write in a world-writable folder: %v", err)
	}
	if _, err := ReadPIDFile(filepath.Join(dir, "serve.pid")); err == nil || !strings.Contains(err.Error(), "writable by other users") {
		t.Fatalf("read in a world-writable folder: %v", err)
	}
}

// TestReadPIDFileOnlyALiveDaemon: a pid file that no daemon holds names a process that must not be
// signalled. Before the fix, reload signalled whatever pid the file held.
func TestReadPIDFileOnlyALiveDaemon(t *testing.T) {
	dir := t.TempDir()
	other := exec.Command("sleep", "30")
	if err := other.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { other.Process.Kill(); other.Wait() })
	stale := filepath.Join(dir, "stale.pid")
	if err := os.WriteFile(stale, []byte(strconv.Itoa(other.Process.Pid)+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.pid")
	live := filepath.Join(dir, "live.pid")
	pf, err := writePIDFile(live)
	if err != nil {
		t.Fatal(err)
	}
	defer pf.remove()
	if err := os.Symlink(live, link); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, path, wantErr string
		wantPID             int
	}{
		{"stale file naming another process", stale, "stale", 0},
		{"a link to the live file", link, "no running daemon", 0},
		{"missing", filepath.Join(dir, "none.pid"), "no running daemon", 0},
		{"the live daemon's file", live, "", os.Getpid()},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pid, err := ReadPIDFile(tc.path)
			if tc.wantErr == "" {
				if err != nil || pid != tc.wantPID {
					t.Fatalf("ReadPIDFile = %d, %v; want %d", pid, err, tc.wantPID)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("ReadPIDFile = %d, %v; want an error with %q", pid, err, tc.wantErr)
			}
		})
	}
}
