// Package store opens the configured backend of core.Store from its URL (store.url in the configuration):
// sqlite://PATH for the embedded file store, postgres://… for PostgreSQL.
package store

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/feedbridge/feedbridge/core"
	"github.com/feedbridge/feedbridge/store/sqlite"
)

// Open opens and migrates the store that url names, for the daemon. A SQLite path may be relative
// (sqlite://./data/fb.db) or absolute (sqlite:///var/lib/feedbridge/fb.db); its folder is created when
// missing.
func Open(ctx context.Context, url string) (core.Store, error) {
	return OpenFor(ctx, url, sqlite.ModeDaemon)
}

// OpenFor opens the store for a process of the given kind (see sqlite.Mode): the daemon, a command that
// writes, or a command that only reads. PostgreSQL serves every kind the same way. A read-only open of a
// SQLite file that does not exist yet creates it as a writing command would: there is nothing to share.
func OpenFor(ctx context.Context, url string, mode sqlite.Mode) (core.Store, error) {
	kind, rest, err := parse(url)
	if err != nil {
		return nil, err
	}
	if kind == "postgres" {
		return openPostgres(ctx, url)
	}
	st, err := sqlite.OpenMode(ctx, rest, mode)
	if mode == sqlite.ModeReadOnly && errors.Is(err, os.ErrNotExist) {
		st, err = sqlite.OpenMode(ctx, rest, sqlite.ModeCommand)
	}
	if err != nil {
		return nil, err
	}
	return st, nil
}

// parse splits a store url into its kind ("sqlite" or "postgres") and, for SQLite, the file's path.
func parse(url string) (kind, path string, err error) {
	scheme, rest, ok := strings.Cut(url, "://")
	if !ok {
		return "", "", fmt.Errorf("store: url %q has no scheme (sqlite://PATH or postgres://…)", redact(url))
	}
	switch strings.ToLower(scheme) {
	case "sqlite", "sqlite3":
		if rest == "" {
			return "", "", errors.New("store: sqlite url has no path")
		}
		return "sqlite", rest, nil
	case "postgres", "postgresql":
		return "postgres", "", nil
	}
	return "", "", fmt.Errorf("store: unknown scheme %q in store url (sqlite or postgres)", scheme)
}

// redact hides everything after the scheme, which may hold a password.
func redact(url string) string {
	if len(url) > 12 {
		return url[:12] + "…"
	}
	return url
}
