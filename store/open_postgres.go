package store

import (
	"context"
	"errors"

	"github.com/feedbridge/feedbridge/core"
)

// openPostgres is a stand-in until store/postgres exists: then it calls postgres.Open.
func openPostgres(ctx context.Context, url string) (core.Store, error) {
	return nil, errors.New("store: postgres store not built")
}
