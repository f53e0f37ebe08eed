// Package migration reads a store's embedded schema migrations: files named NNNN_description.sql,
// numbered from 1 without gaps. Migrations are append-only: a released file never changes, and a schema
// change is a new, higher number. Each store applies them its own way.
package migration

import (
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strconv"
	"strings"
)

// Migration is one file.
type Migration struct {
	Version int
	Name    string
	SQL     string
}

// Load reads the migrations in dir of fsys in version order.
func Load(fsys fs.FS, dir string) ([]Migration, error) {
	entries, err := fs.ReadDir(fsys, dir)
	if err != nil {
		return nil, err
	}
	var out []Migration
	for _, e := range entries {
		num, _, ok := strings.Cut(e.Name(), "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil || v <= 0 {
			return nil, fmt.Errorf("migration %s: name must start with a positive number and '_'", e.Name())
		}
		b, err := fs.ReadFile(fsys, path.Join(dir, e.Name()))
		if err != nil {
			return nil, err
		}
		out = append(out, Migration{Version: v, Name: e.Name(), SQL: string(b)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Version < out[j].Version })
	for i, m := range out {
		if m.Version != i+1 {
			return nil, fmt.Errorf("migration %s: expected version %d (no gaps, no repeats)", m.Name, i+1)
		}
	}
	return out, nil
}

// Latest is the highest version in ms, or -1 when they cannot be read.
func Latest(ms []Migration, err error) int {
	if err != nil || len(ms) == 0 {
		return -1
	}
	return ms[len(ms)-1].Version
}
