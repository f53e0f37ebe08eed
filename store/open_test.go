package store_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/feedbridge/feedbridge/store"
	"github.com/feedbridge/feedbridge/store/sqlite"
)

func TestOpenSQLite(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	cases := []struct {
		name, url, file string
	}{
		{"relative", "sqlite://./data.db", filepath.Join(dir, "data.db")},
		{"relative without dot", "sqlite://sub.db", filepath.Join(dir, "sub.db")},
		{"absolute", "sqlite://" + filepath.Join(dir, "abs.db"), filepath.Join(dir, "abs.db")},
		{"scheme in capitals", "SQLITE://" + filepath.Join(dir, "caps.db"), filepath.Join(dir, "caps.db")},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			st, err := store.Open(t.Context(), c.url)
			if err != nil {
				t.Fatalf("open %s: %v", c.url, err)
			}
			defer st.Close()
			if _, ok := st.(*sqlite.Store); !ok {
				t.Fatalf("want a *sqlite.Store, got %T", st)
			}
			if err := st.Ping(t.Context()); err != nil {
				t.Fatalf("ping: %v", err)
			}
			if _, err := os.Stat(c.file); err != nil {
				t.Fatalf("database file: %v", err)
			}
		})
	}
}

func TestOpenRefusesBadURLs(t *testing.T) {
	cases := []struct{ url, want string }{
		{"./feedbridge.db", "no scheme"},
		{"sqlite://", "no path"},
		{"mysql://u:secret@h/db", "unknown scheme"},
		{"postgres://u:secret@127.0.0.1:1/db?connect_timeout=1", ""},
	}
	for _, c := range cases {
		t.Run(c.url, func(t *testing.T) {
			// An unreachable PostgreSQL may be waited for; the caller's deadline bounds that.
			ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
			defer cancel()
			st, err := store.Open(ctx, c.url)
			if err == nil {
				st.Close()
				t.Fatalf("open %s: want an error", c.url)
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %q does not say %q", err, c.want)
			}
			if strings.Contains(err.Error(), "secret") {
				t.Fatalf("error leaks the password: %v", err)
			}
		})
	}
}
