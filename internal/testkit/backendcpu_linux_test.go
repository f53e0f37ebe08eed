//go:build linux

package testkit

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/jackc/pgx/v5"
)

func TestProcTicks(t *testing.T) {
	stat := filepath.Join(t.TempDir(), "stat")
	// A command name with a space and a parenthesis, then utime 250 and stime 70.
	line := "4242 (postgres: x) y) S 1 4242 4242 0 -1 4194560 100 0 0 0 250 70 0 0 20 0 1 0 1000 0 0\n"
	if err := os.WriteFile(stat, []byte(line), 0o600); err != nil {
		t.Fatal(err)
	}
	if got := procTicks(stat); got != 320 {
		t.Errorf("procTicks = %d, want 320", got)
	}
}

func TestClientPort(t *testing.T) {
	for _, tc := range []struct {
		title string
		port  int
		ok    bool
	}{
		{"postgres: 15/main: postgres test 127.0.0.1(47168) idle", 47168, true},
		{"postgres: 15/main: postgres test 127.0.0.1(47168) idle in transaction (aborted)", 47168, true},
		{"postgres: 15/main: checkpointer ", 0, false},
	} {
		if p, ok := clientPort(tc.title); p != tc.port || ok != tc.ok {
			t.Errorf("clientPort(%q) = %d, %v; want %d, %v", tc.title, p, ok, tc.port, tc.ok)
		}
	}
}

// TestBackendCPU: a query that keeps its backend busy shows in BackendCPU, as nothing of it shows in
// this process's CPU.
func TestBackendCPU(t *testing.T) {
	raw := os.Getenv("FEEDBRIDGE_TEST_POSTGRES_URL")
	if raw == "" {
		t.Skip("FEEDBRIDGE_TEST_POSTGRES_URL is not set")
	}
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, raw)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	before := BackendCPU(raw)
	var sum int64
	if err := conn.QueryRow(ctx, `SELECT sum(i) FROM generate_series(1, 5000000) i`).Scan(&sum); err != nil {
		t.Fatal(err)
	}
	if d := BackendCPU(raw) - before; d < 50e6 { // the sum keeps its backend busy well past this
		t.Errorf("BackendCPU grew by %v over a query that keeps its backend busy", d)
	}
}
