// Package storekit gives tests outside the store packages a real store of each kind: a fresh SQLite file
// always, and a fresh PostgreSQL schema when FEEDBRIDGE_TEST_POSTGRES_URL names a server.
package storekit

import (
	"path/filepath"
	"testing"

	"github.com/feedbridge/feedbridge/core"
	"github.com/feedbridge/feedbridge/store/postgres/pgtest"
	"github.com/feedbridge/feedbridge/store/sqlite"
)

// Each runs fn as a subtest on each store, closed when the subtest ends.
func Each(t *testing.T, fn func(t *testing.T, st core.Store)) {
	t.Run("sqlite", func(t *testing.T) {
		st, err := sqlite.Open(t.Context(), filepath.Join(t.TempDir(), "fb.db"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		fn(t, st)
	})
	t.Run("postgres", func(t *testing.T) { fn(t, pgtest.Open(t)) })
}
