package cli

import (
	"context"
	"net/url"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/feedbridge/feedbridge/store/postgres/pgtest"
)

// TestConfigCheckNeverMigratesPostgres: `config check` on an empty PostgreSQL database reports that
// migrations are pending and leaves the database empty. Before the fix it opened the store the way the
// daemon does, which applied every migration.
func TestConfigCheckNeverMigratesPostgres(t *testing.T) {
	dbURL := pgtest.URL(t)
	u, err := url.Parse(dbURL)
	if err != nil {
		t.Fatal(err)
	}
	schema := strings.Split(u.Query().Get("search_path"), ",")[0]
	tables := func(t *testing.T) int {
		t.Helper()
		conn, err := pgxpool.New(context.Background(), dbURL)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		var n int
		if err := conn.QueryRow(context.Background(), `SELECT count(*) FROM information_schema.tables WHERE table_schema = $1`, schema).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	cfg := newConfig(t, "")
	steps := []struct {
		name        string
		args        []string
		wantPending bool
	}{
		{"an empty database", []string{"--store.url", dbURL, "config", "check"}, true},
		{"the same in JSON", []string{"--store.url", dbURL, "--json", "config", "check"}, true},
	}
	for _, s := range steps {
		t.Run(s.name, func(t *testing.T) {
			code, out, errOut := run(t, cfg, s.args...)
			if code != 0 {
				t.Fatalf("exit %d: %s%s", code, out, errOut)
			}
			if got := strings.Contains(out, "migration(s) pending"); got != s.wantPending {
				t.Fatalf("pending migrations reported: %v, want %v\n%s", got, s.wantPending, out)
			}
			if n := tables(t); n != 0 {
				t.Fatalf("config check created %d tables", n)
			}
		})
	}
	if code, _, errOut := run(t, cfg, "--store.url", dbURL, "migrate"); code != 0 {
		t.Fatalf("migrate: %d %s", code, errOut)
	}
	code, out, errOut := run(t, cfg, "--store.url", dbURL, "config", "check")
	if code != 0 || strings.Contains(out, "pending") {
		t.Fatalf("after migrate: exit %d\n%s%s", code, out, errOut)
	}
}
