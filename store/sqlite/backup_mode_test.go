//go:build unix

package sqlite

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// A backup holds every workspace's data: it is readable by its owner only, whatever the umask, and a
// link planted at its name is refused, not followed.
func TestBackupIsPrivate(t *testing.T) {
	old := syscall.Umask(0o022)
	defer syscall.Umask(old)
	dir := t.TempDir()
	live := filepath.Join(dir, "live.db")
	st := openT(t, live)
	// A store created by an older version, or by hand, may be readable by all; its backup is not.
	if err := os.Chmod(live, 0o644); err != nil {
		t.Fatal(err)
	}
	copyPath := filepath.Join(dir, "copy.db")
	if err := st.Backup(t.Context(), copyPath); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(copyPath)
	if err != nil {
		t.Fatal(err)
	}
	if mode := fi.Mode().Perm(); mode != 0o600 {
		t.Errorf("backup mode %o, want 600", mode)
	}
	if reopened, err := Open(t.Context(), copyPath); err != nil {
		t.Errorf("the copy does not open: %v", err)
	} else {
		reopened.Close()
	}

	victim := filepath.Join(dir, "victim")
	link := filepath.Join(dir, "link.db")
	if err := os.Symlink(victim, link); err != nil {
		t.Fatal(err)
	}
	if err := st.Backup(t.Context(), link); err == nil {
		t.Error("backup through a link succeeded")
	}
	if _, err := os.Lstat(victim); !os.IsNotExist(err) {
		t.Errorf("the link's target was created: %v", err)
	}
}
