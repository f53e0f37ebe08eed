package store

import (
	"context"

	"github.com/feedbridge/feedbridge/core"
	"github.com/feedbridge/feedbridge/store/postgres"
)

// openPostgres opens the PostgreSQL store; the URL is passed on whole (pgx reads its parameters).
func openPostgres(ctx context.Context, url string) (core.Store, error) {
	st, err := postgres.Open(ctx, url)
	if err != nil {
		return nil, err
	}
	return st, nil
}
