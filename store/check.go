package store

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/feedbridge/feedbridge/core"
	"github.com/feedbridge/feedbridge/store/postgres"
	"github.com/feedbridge/feedbridge/store/sqlite"
)

// Check reports, for `config check`, whether the store at url can be used, and whether each workspace that
// uses (a connector entry's name → its workspace id) names exists in it. It changes nothing: an existing
// SQLite file is opened read-only and a PostgreSQL database with every transaction read-only and without
// migrating; for a SQLite file that does not exist yet, the nearest existing folder on its path must let
// this user create files. Migrations that are pending (a new database, or one of an older binary) are
// not a problem, since the daemon's start or `feedbridge migrate` applies them: they are returned as notes,
// and the workspaces are checked only where the schema already has them.
func Check(ctx context.Context, url string, uses map[string]core.ID) (problems []error, notes []string) {
	kind, path, err := parse(url)
	if err != nil {
		return []error{err}, nil
	}
	var st core.Store
	switch {
	case kind == "postgres":
		var pg *postgres.Store
		if pg, err = postgres.OpenInspect(ctx, url); err != nil {
			break
		}
		st = pg
		have, want, serr := pg.SchemaStatus(ctx)
		if serr != nil {
			pg.Close()
			return []error{fmt.Errorf("store.url: the store cannot be read: %w", serr)}, nil
		}
		if have < want {
			notes = append(notes, pending(have, want))
			if have == 0 {
				pg.Close()
				return nil, notes
			}
		}
	default:
		if _, serr := os.Stat(path); serr != nil {
			if err := creatable(path); err != nil {
				return []error{err}, nil
			}
			if !errors.Is(serr, os.ErrNotExist) {
				return []error{fmt.Errorf("store.url: the store %s cannot be read: %w", path, serr)}, nil
			}
			return nil, nil
		}
		have, want, serr := sqlite.SchemaStatus(ctx, path)
		if serr != nil {
			return []error{fmt.Errorf("store.url: the store cannot be read: %w", serr)}, nil
		}
		if have < want {
			// A read-only open refuses a schema that is not current, so the workspaces wait for the migration.
			return nil, []string{pending(have, want)}
		}
		st, err = sqlite.OpenMode(ctx, path, sqlite.ModeReadOnly)
	}
	if err != nil {
		return []error{fmt.Errorf("store.url: the store cannot be opened: %w", err)}, nil
	}
	defer st.Close()
	for _, name := range sortedNames(uses) {
		if _, err := st.Workspace(ctx, uses[name]); errors.Is(err, core.ErrNotFound) {
			problems = append(problems, fmt.Errorf("%s: workspace %s does not exist in the store (see feedbridge workspace list)", name, uses[name]))
		} else if err != nil {
			problems = append(problems, fmt.Errorf("%s: workspace %s: %w", name, uses[name], err))
		}
	}
	return problems, notes
}

// pending is the note that migrations are waiting.
func pending(have, want int) string {
	return fmt.Sprintf("store: %d migration(s) pending (schema version %d, this binary needs %d); the daemon applies them when it starts, or run feedbridge migrate", want-have, have, want)
}

// creatable checks that a SQLite file could be created at path: the nearest existing folder on its path
// takes a new file (tried, and removed at once).
func creatable(path string) error {
	dir := filepath.Dir(path)
	for {
		fi, err := os.Stat(dir)
		if err == nil {
			if !fi.IsDir() {
				return fmt.Errorf("store.url: %s is not a folder, so the store %s cannot be created", dir, path)
			}
			break
		}
		if filepath.Dir(dir) == dir {
			return fmt.Errorf("store.url: the store %s cannot be created: %w", path, err)
		}
		dir = filepath.Dir(dir)
	}
	f, err := os.CreateTemp(dir, ".feedbridge-check-*")
	if err != nil {
		return fmt.Errorf("store.url: the store %s cannot be created: this user may not create files in %s", path, dir)
	}
	f.Close()
	return os.Remove(f.Name())
}

func sortedNames(m map[string]core.ID) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
