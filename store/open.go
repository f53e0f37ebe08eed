// Package store opens the configured backend of core.Store from its URL (store.url in the configuration):
// sqlite://PATH for the embedded file store, postgres://… for PostgreSQL.
package store

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/feedbridge/feedbridge/core"
	"github.com/feedbridge/feedbridge/store/sqlite"
)

// Open opens and migrates the store that url names. A SQLite path may be relative (sqlite://./data/fb.db)
// or absolute (sqlite:///var/lib/feedbridge/fb.db).
func Open(ctx context.Context, url string) (core.Store, error) {
	scheme, rest, ok := strings.Cut(url, "://")
	if !ok {
		return nil, fmt.Errorf("store: url %q has no scheme (sqlite://PATH or postgres://…)", redact(url))
	}
	switch strings.ToLower(scheme) {
	case "sqlite", "sqlite3":
		if rest == "" {
			return nil, errors.New("store: sqlite url has no path")
		}
		return sqlite.Open(ctx, rest)
	case "postgres", "postgresql":
		return openPostgres(ctx, url)
	}
	return nil, fmt.Errorf("store: unknown scheme %q in store url (sqlite or postgres)", scheme)
}

// redact hides everything after the scheme, which may hold a password.
func redact(url string) string {
	if len(url) > 12 {
		return url[:12] + "…"
	}
	return url
}
