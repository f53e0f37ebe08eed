package cli

import (
	"database/sql"
	"path/filepath"
	"strings"
	"testing"
)

// TestConfigCheckReportsPendingSQLiteMigrations: a SQLite store of an older schema is reported as having
// migrations pending (a warning, exit 0) and is left as it is. Before, the read-only open failed and config
// check called the store unusable.
func TestConfigCheckReportsPendingSQLiteMigrations(t *testing.T) {
	cfg := newConfig(t, "")
	if code, _, errOut := run(t, cfg, "migrate"); code != 0 {
		t.Fatalf("migrate: %d %s", code, errOut)
	}
	db, err := sql.Open("sqlite", filepath.Join(filepath.Dir(cfg), "fb.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	version := func() int {
		var v int
		if err := db.QueryRow(`SELECT max(version) FROM schema_migrations`).Scan(&v); err != nil {
			t.Fatal(err)
		}
		return v
	}
	latest := version()
	if _, err := db.Exec(`DELETE FROM schema_migrations WHERE version = ?`, latest); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := run(t, cfg, "config", "check")
	if code != 0 || !strings.Contains(out, "warning: store: 1 migration(s) pending") {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	if v := version(); v != latest-1 {
		t.Fatalf("config check migrated: schema version %d", v)
	}
}
