package cli

import (
	"bufio"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	neturl "net/url"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/feedbridge/feedbridge/api"
	"github.com/feedbridge/feedbridge/internal/testkit"
	"github.com/feedbridge/feedbridge/store/postgres/pgtest"
)

// killChildEnv carries the arguments (JSON) of the `feedbridge` process that TestKilledImportIsClosed
// starts and kills: this test binary, running the CLI as cmd/feedbridge does.
const killChildEnv = "FEEDBRIDGE_CLI_KILL_CHILD"

// TestKilledImportIsClosed kills a running `feedbridge import csv` with SIGKILL. Its run stays "running"
// while its lease could still be renewed (an import next to it must not close a live run), and the first
// import after the lease ran out closes it as failed. (That the file then imports exactly once is
// csvimport's TestKillMidImport.)
func TestKilledImportIsClosed(t *testing.T) {
	if spec, child := testkit.ChildSpec(killChildEnv); child {
		var args []string
		if err := json.Unmarshal([]byte(spec), &args); err != nil {
			t.Fatal(err)
		}
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		code := Main(ctx, args, strings.NewReader(""), os.Stdout, os.Stderr)
		stop()
		os.Exit(code)
	}
	if testing.Short() {
		t.Skip("starts and kills a child process")
	}
	t.Run("sqlite", func(t *testing.T) {
		t.Parallel()
		path := filepath.Join(t.TempDir(), "fb.db")
		db, err := sql.Open("sqlite", path)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		testKilledImportIsClosed(t, newConfigURL(t, "sqlite://"+path), func() error {
			_, err := db.Exec(`UPDATE leases SET expires_at = 0`)
			return err
		})
	})
	t.Run("postgres", func(t *testing.T) {
		t.Parallel()
		url := pgtest.URL(t)
		u, err := neturl.Parse(url)
		if err != nil {
			t.Fatal(err)
		}
		q := u.Query()
		q.Del("pool_max_conns") // a pool setting a single connection refuses
		u.RawQuery = q.Encode()
		ctx := context.Background()
		conn, err := pgx.Connect(ctx, u.String())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { conn.Close(ctx) })
		testKilledImportIsClosed(t, newConfigURL(t, url), func() error {
			_, err := conn.Exec(ctx, `UPDATE leases SET expires_at = now() - interval '1 hour'`)
			return err
		})
	})
}

// newConfigURL writes a config file whose store is url.
func newConfigURL(t *testing.T, url string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "feedbridge.yaml")
	if err := os.WriteFile(p, []byte("store:\n  url: "+url+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// testKilledImportIsClosed drives the scenario on one store; expireLeases does to the store's leases what
// 30 s without renewal would.
func testKilledImportIsClosed(t *testing.T, cfg string, expireLeases func() error) {
	_, out, _ := run(t, cfg, "workspace", "create", "--name", "Killed import")
	ws := strings.TrimSpace(out)
	dir := t.TempDir()
	// Enough rows that the child is still importing while the test runs another import beside it and
	// kills it: at 60,000 the faster SQLite import sometimes finished first (2.2 s).
	const rows = 400_000
	var sb strings.Builder
	sb.WriteString("id,title,body,email\n")
	for i := range rows {
		fmt.Fprintf(&sb, "%d,Row %d,Body of row %d,user%d@acme%d.com\n", i, i, i, i%500, i%20)
	}
	big := filepath.Join(dir, "big.csv")
	small := filepath.Join(dir, "small.csv")
	if err := os.WriteFile(big, []byte(sb.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(small, []byte("title\nOne more\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	runs := func() map[string]api.ImportRunView {
		t.Helper()
		code, out, errOut := run(t, cfg, "import", "runs", "--workspace", ws, "--json")
		var list []api.ImportRunView
		if code != 0 {
			t.Fatalf("import runs: exit %d: %s", code, errOut)
		}
		mustJSON(t, out, &list)
		byFile := map[string]api.ImportRunView{}
		for _, r := range list {
			if prev, ok := byFile[r.File]; !ok || r.StartedAt < prev.StartedAt {
				byFile[r.File] = r // the first run of each file
			}
		}
		return byFile
	}
	importCSV := func(file string) {
		t.Helper()
		if code, _, errOut := run(t, cfg, "import", "csv", "--workspace", ws, file); code != 0 {
			t.Fatalf("import csv %s: exit %d: %s", file, code, errOut)
		}
	}

	args, _ := json.Marshal([]string{"--config", cfg, "import", "csv", "--workspace", ws, big})
	cmd, stderr := testkit.StartChild(t, "TestKilledImportIsClosed", killChildEnv, string(args), testkit.Stderr)
	sc := bufio.NewScanner(stderr)
	for sc.Scan() {
		var n int
		if _, err := fmt.Sscanf(sc.Text(), "rows %d", &n); err == nil && n >= 1_000 {
			break
		}
	}
	drained := make(chan struct{}) // the child must not block on its progress lines
	go func() { _, _ = io.Copy(io.Discard, stderr); close(drained) }()
	// The child is importing: another import next to it leaves its run alone.
	importCSV(small)
	if r := runs()[big]; r.Status != "running" {
		t.Fatalf("a live import's run is %q after another import, want running: %+v", r.Status, r)
	}
	testkit.Kill9(t, cmd)
	<-drained
	killed := runs()[big]
	if killed.Status != "running" || killed.Rows >= rows {
		t.Fatalf("killed run %+v: want running and part-way", killed)
	}

	// Its lease has not run out yet: an import now cannot tell it from a live one.
	importCSV(small)
	if r := runs()[big]; r.Status != "running" {
		t.Errorf("the killed run was closed while its lease still held: %+v", r)
	}
	if err := expireLeases(); err != nil {
		t.Fatal(err)
	}
	importCSV(small)
	closed := runs()[big]
	if closed.ID != killed.ID || closed.Status != "failed" || !strings.HasPrefix(closed.Error, "interrupted") || closed.FinishedAt == "" {
		t.Errorf("killed run after the next import: %+v, want failed as interrupted", closed)
	}
}
