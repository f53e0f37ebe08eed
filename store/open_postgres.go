package store

import (
	"context"

	"github.com/feedbridge/feedbridge/core"
	"github.com/feedbridge/feedbridge/store/postgres"
)

// openPostgres opens (and migrates, under an advisory lock) a PostgreSQL store.
func openPostgres(ctx context.Context, url string) (core.Store, error) {
	return postgres.Open(ctx, url)
}
