package api

import (
	"os"
	"testing"

	"github.com/feedbridge/feedbridge/core"
	"github.com/feedbridge/feedbridge/store/postgres/pgtest"
)

// postgresOpener runs the API tests on PostgreSQL too when FEEDBRIDGE_TEST_POSTGRES_URL names a server
// (eval "$(.ci/postgres.sh)" finds or starts one). Each test gets a fresh schema, as empty as a new SQLite
// file, dropped when it ends.
func postgresOpener() opener {
	if os.Getenv(pgtest.EnvURL) == "" {
		return nil
	}
	return func(t testing.TB) core.Store { return pgtest.Open(t) }
}

// TestPostgresConfigured says plainly when the PostgreSQL half of the suite did not run.
func TestPostgresConfigured(t *testing.T) {
	if postgresOpener() == nil {
		t.Skip(pgtest.EnvURL + " is not set: the API tests ran on SQLite only (eval \"$(.ci/postgres.sh)\" adds PostgreSQL)")
	}
}
