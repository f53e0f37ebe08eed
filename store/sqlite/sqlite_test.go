package sqlite_test

import (
	"path/filepath"
	"testing"

	"github.com/feedbridge/feedbridge/core"
	"github.com/feedbridge/feedbridge/store/sqlite"
	"github.com/feedbridge/feedbridge/store/storetest"
)

func TestConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) core.Store {
		st, err := sqlite.Open(t.Context(), filepath.Join(t.TempDir(), "feedbridge.db"))
		if err != nil {
			t.Fatalf("open: %v", err)
		}
		t.Cleanup(func() { st.Close() })
		return st
	})
}
