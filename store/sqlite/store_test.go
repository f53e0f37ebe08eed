package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/feedbridge/feedbridge/core"
)

func openT(t *testing.T, path string) *Store {
	t.Helper()
	st, err := Open(t.Context(), path)
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

func TestBackupIsAConsistentCopy(t *testing.T) {
	dir := t.TempDir()
	st := openT(t, filepath.Join(dir, "live.db"))
	svc := core.NewService(st, core.Options{})
	ctx := t.Context()
	ws, err := svc.CreateWorkspace(ctx, "Acme", core.PlanPro, -1)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 50 {
		if _, err := svc.Submit(ctx, ws.ID, core.Submission{Type: core.RecordFeedback, Title: fmt.Sprintf("before %d", i), Description: "Straße"}); err != nil {
			t.Fatal(err)
		}
	}
	// Writes go on while the backup runs: the copy holds one snapshot, whatever it is.
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			if _, err := svc.Submit(ctx, ws.ID, core.Submission{Type: core.RecordFeedback, Title: fmt.Sprintf("during %d", i)}); err != nil {
				t.Errorf("write during backup: %v", err)
				return
			}
		}
	}()
	copyPath := filepath.Join(dir, "copy.db")
	err = st.Backup(ctx, copyPath)
	close(stop)
	wg.Wait()
	if err != nil {
		t.Fatalf("backup: %v", err)
	}

	restored := openT(t, copyPath)
	if err := restored.Ping(ctx); err != nil {
		t.Fatalf("ping the copy: %v", err)
	}
	var integrity string
	if err := restored.w.QueryRowContext(ctx, `PRAGMA integrity_check`).Scan(&integrity); err != nil || integrity != "ok" {
		t.Fatalf("the copy's integrity check: %q, %v", integrity, err)
	}
	got, err := restored.Workspace(ctx, ws.ID)
	if err != nil || got.Name != "Acme" {
		t.Fatalf("workspace in the copy: %+v, %v", got, err)
	}
	recs, err := restored.Records(ctx, ws.ID, core.ListQuery{Type: core.RecordFeedback, Search: core.Fold("STRASSE"), Limit: 1000})
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 50 {
		t.Fatalf("the copy's search index finds %d of the 50 records written before the backup", len(recs))
	}
	if err := st.Backup(ctx, copyPath); err == nil || !strings.Contains(err.Error(), "already exists") {
		t.Fatalf("a backup over an existing file: want a refusal, got %v", err)
	}
}

func TestReopenAndConcurrentOpenMigrateOnce(t *testing.T) {
	path := filepath.Join(t.TempDir(), "fb.db")
	const n = 4
	stores := make([]*Store, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			stores[i], errs[i] = Open(t.Context(), path)
		}()
	}
	wg.Wait()
	for i := range n {
		if errs[i] != nil {
			t.Fatalf("concurrent open %d: %v", i, errs[i])
		}
		defer stores[i].Close()
	}
	st := openT(t, path) // and once more, after the fact
	var rows, max int
	if err := st.r.QueryRow(`SELECT count(*), max(version) FROM schema_migrations`).Scan(&rows, &max); err != nil {
		t.Fatal(err)
	}
	ms, err := migrations()
	if err != nil {
		t.Fatal(err)
	}
	if rows != len(ms) || max != latestVersion() {
		t.Fatalf("schema_migrations has %d rows up to %d, want %d up to %d", rows, max, len(ms), latestVersion())
	}
}

func TestPingChecksTheSchemaVersion(t *testing.T) {
	cases := []struct {
		name   string
		change string
	}{
		{"newer database", fmt.Sprintf(`INSERT INTO schema_migrations(version, name, applied_at) VALUES (%d, 'future.sql', 0)`, latestVersion()+1)},
		{"migration missing", fmt.Sprintf(`DELETE FROM schema_migrations WHERE version = %d`, latestVersion())},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			st := openT(t, filepath.Join(t.TempDir(), "fb.db"))
			if err := st.Ping(t.Context()); err != nil {
				t.Fatalf("ping a current store: %v", err)
			}
			if _, err := st.w.Exec(c.change); err != nil {
				t.Fatal(err)
			}
			err := st.Ping(t.Context())
			if !errors.Is(err, core.ErrUnavailable) || !strings.Contains(err.Error(), "schema version") {
				t.Fatalf("want an unavailable schema-version error, got %v", err)
			}
		})
	}
}

func TestLockedDatabaseIsUnavailable(t *testing.T) {
	path := filepath.Join(t.TempDir(), "fb.db")
	st, err := open(t.Context(), path, 50*time.Millisecond, ModeDaemon)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ws := core.Workspace{ID: core.NewID(), Name: "A", Plan: core.PlanPro, CreatedAt: time.Now()}
	if err := st.CreateWorkspace(t.Context(), ws); err != nil {
		t.Fatal(err)
	}
	// Another process (here: another connection) holds the write lock.
	holdWriteLock(t, path)

	err = st.CreateWorkspace(t.Context(), core.Workspace{ID: core.NewID(), Name: "B", Plan: core.PlanPro, CreatedAt: time.Now()})
	if !errors.Is(err, core.ErrUnavailable) {
		t.Fatalf("write while locked: want ErrUnavailable, got %v", err)
	}
	if _, err := st.Workspace(t.Context(), ws.ID); err != nil {
		t.Fatalf("reads go on while another process writes (WAL): %v", err)
	}
}

// holdWriteLock takes the write lock of the database at path on a connection of its own, as another
// process would, until the test ends; the connection is returned to run statements in that transaction.
func holdWriteLock(t *testing.T, path string) *sql.Conn {
	t.Helper()
	other, err := sql.Open("sqlite", dsn(path, 0, ""))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { other.Close() })
	conn, err := other.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	if _, err := conn.ExecContext(t.Context(), `BEGIN IMMEDIATE`); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.ExecContext(context.Background(), `ROLLBACK`) })
	return conn
}

// A write waiting for another process's lock ends soon after its caller gives up, not at the end of the
// busy timeout: SQLite's own wait ignores cancellation, so the store waits in short steps and looks
// between them whether anyone still waits for the write. Nothing is written.
func TestWriteWaitingForTheLockEndsWithItsCaller(t *testing.T) {
	path := filepath.Join(t.TempDir(), "fb.db")
	st, err := open(t.Context(), path, time.Minute, ModeDaemon)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	conn := holdWriteLock(t, path)
	ctx, cancel := context.WithTimeout(t.Context(), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	err = st.CreateWorkspace(ctx, core.Workspace{ID: core.NewID(), Name: "late", Plan: core.PlanPro, CreatedAt: time.Now()})
	waited := time.Since(start)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("write whose caller gave up: want its deadline, got %v", err)
	}
	// The caller's deadline plus one step of the wait, with room for a slow machine; the busy timeout is a
	// minute.
	if waited > 300*time.Millisecond+beginPoll+5*time.Second {
		t.Fatalf("write returned %v after its caller's deadline of 300ms", waited)
	}
	if _, err := conn.ExecContext(t.Context(), `ROLLBACK`); err != nil {
		t.Fatal(err)
	}
	if err := st.CreateWorkspace(t.Context(), core.Workspace{ID: core.NewID(), Name: "next", Plan: core.PlanPro, CreatedAt: time.Now()}); err != nil {
		t.Fatalf("the next write, once the lock is free: %v", err)
	}
	var n int
	if err := st.w.QueryRow(`SELECT count(*) FROM workspaces WHERE name = 'late'`).Scan(&n); err != nil || n != 0 {
		t.Fatalf("the given-up write left %d rows (%v)", n, err)
	}
	t.Logf("returned %v after the call began", waited.Round(time.Millisecond))
}
