package postgres_test

import (
	"testing"

	"github.com/feedbridge/feedbridge/core"
	"github.com/feedbridge/feedbridge/store/postgres/pgtest"
	"github.com/feedbridge/feedbridge/store/storetest"
)

// TestConformance runs the suite every store passes, each test on its own fresh database.
func TestConformance(t *testing.T) {
	pgtest.ServerURL(t) // skip the whole suite at once when no server is configured
	storetest.Run(t, func(t *testing.T) core.Store { return pgtest.Open(t) })
}

// TestConformanceExtra runs the suite's cases added for concurrency and strict text types.
func TestConformanceExtra(t *testing.T) {
	pgtest.ServerURL(t)
	storetest.RunExtra(t, func(t *testing.T) core.Store { return pgtest.Open(t) })
}
