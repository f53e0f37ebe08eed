package sqlite

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/feedbridge/feedbridge/core"
)

// TestOpenCreatesFolderAndFile: a store whose folder is missing is created, the folder 0700 and the
// database file 0600 (customers' data); the log files take the file's mode.
func TestOpenCreatesFolderAndFile(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "feedbridge-data", "sub")
	path := filepath.Join(dir, "feedbridge.db")
	st := openT(t, path)
	if err := st.CreateWorkspace(t.Context(), core.Workspace{ID: core.NewID(), Name: "A", Plan: core.PlanPro, CreatedAt: time.Now()}); err != nil {
		t.Fatal(err)
	}
	for p, want := range map[string]os.FileMode{dir: 0o700 | os.ModeDir, filepath.Dir(dir): 0o700 | os.ModeDir, path: 0o600, path + "-wal": 0o600} {
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode() != want {
			t.Errorf("%s: mode %v, want %v", p, fi.Mode(), want)
		}
	}
}

// TestOpenNamesThePath: a store that cannot be created names its path and what to do.
func TestOpenNamesThePath(t *testing.T) {
	file := filepath.Join(t.TempDir(), "a-file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := Open(t.Context(), filepath.Join(file, "data", "fb.db"))
	if err == nil || !strings.Contains(err.Error(), filepath.Join(file, "data")) || !strings.Contains(err.Error(), "store.url") {
		t.Fatalf("want an error naming the folder and store.url, got %v", err)
	}
}

// TestCommandsShareTheStore: with the schema current, a command opens the store (read-only or to write)
// without the write lock, so another process's long transaction does not fail it; a read-only store
// refuses writes and an outdated schema.
func TestCommandsShareTheStore(t *testing.T) {
	path := filepath.Join(t.TempDir(), "fb.db")
	st := openT(t, path)
	ws := core.Workspace{ID: core.NewID(), Name: "A", Plan: core.PlanPro, CreatedAt: time.Now()}
	if err := st.CreateWorkspace(t.Context(), ws); err != nil {
		t.Fatal(err)
	}
	st.Close()

	// Another process holds the write lock throughout.
	conn := holdWriteLock(t, path)

	for _, mode := range []Mode{ModeCommand, ModeReadOnly} {
		ctx, cancel := context.WithTimeout(t.Context(), 3*time.Second)
		s, err := open(ctx, path, 100*time.Millisecond, mode)
		cancel()
		if err != nil {
			t.Fatalf("mode %d: open while another process writes: %v", mode, err)
		}
		if _, err := s.Workspace(t.Context(), ws.ID); err != nil {
			t.Fatalf("mode %d: read: %v", mode, err)
		}
		s.Close()
	}

	ro, err := OpenMode(t.Context(), path, ModeReadOnly)
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	if _, err := conn.ExecContext(t.Context(), `ROLLBACK`); err != nil {
		t.Fatal(err)
	}
	err = ro.CreateWorkspace(t.Context(), core.Workspace{ID: core.NewID(), Name: "B", Plan: core.PlanPro, CreatedAt: time.Now()})
	if err == nil {
		t.Fatal("a read-only store wrote")
	}
	if _, err := conn.ExecContext(t.Context(), `DELETE FROM schema_migrations WHERE version = (SELECT max(version) FROM schema_migrations)`); err != nil {
		t.Fatal(err)
	}
	if _, err := OpenMode(t.Context(), path, ModeReadOnly); !errors.Is(err, core.ErrUnavailable) || !strings.Contains(err.Error(), "feedbridge migrate") {
		t.Fatalf("read-only open of an outdated schema: want unavailable naming migrate, got %v", err)
	}
	if _, err := OpenMode(t.Context(), filepath.Join(t.TempDir(), "none.db"), ModeReadOnly); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("read-only open of a missing file: want ErrNotExist, got %v", err)
	}
}

// TestWritersTakeTurns: a daemon whose writer starts its next transaction the moment it commits (each
// holding the lock for a while) still lets another process's write in between, well within that process's
// busy timeout; without turns SQLite's polling for the lock would let the daemon win every time.
func TestWritersTakeTurns(t *testing.T) {
	path := filepath.Join(t.TempDir(), "fb.db")
	daemon := openT(t, path)
	if daemon.turn.shared() {
		t.Fatal("a daemon no command has waited for counts the store as shared")
	}
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			select {
			case <-stop:
				return
			default:
			}
			daemon.write(context.Background(), "busy", func(tx *wtx) error {
				_, err := tx.raw.ExecContext(tx.ctx, `INSERT OR REPLACE INTO checkpoints(workspace_id, name, value, updated_at)
					SELECT id, 'busy', 'x', 0 FROM workspaces LIMIT 1`)
				time.Sleep(20 * time.Millisecond)
				return err
			})
		}
	}()
	defer func() { close(stop); <-done }()

	cmd, err := open(t.Context(), path, 2*time.Second, ModeCommand)
	if err != nil {
		t.Fatal(err)
	}
	defer cmd.Close()
	// A command that finds the lock free between two of the daemon's transactions never waits, and on a
	// loaded machine a few can in a row; so it writes until one has waited, and each write must succeed.
	deadline := time.Now().Add(10 * time.Second)
	for i := 0; i < 5 || !daemon.turn.shared(); i++ {
		ws := core.Workspace{ID: core.NewID(), Name: fmt.Sprint("W", i), Plan: core.PlanPro, CreatedAt: time.Now()}
		if err := cmd.CreateWorkspace(t.Context(), ws); err != nil {
			t.Fatalf("write %d of a command beside a busy daemon: %v", i, err)
		}
		if time.Now().After(deadline) {
			t.Fatalf("after %d writes of a command beside a busy daemon, the daemon still does not count the store as shared (its index drains stay long)", i+1)
		}
	}
}
