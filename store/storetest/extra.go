package storetest

// This file and races_extra.go, text_extra.go are the PostgreSQL store's additions to the suite:
// cases that only bite a store with real concurrency or a stricter text type. RunExtra runs them; add
// {"Races", raceTests} and {"Text", textTests} to Run's groups to make them part of Run itself.

import (
	"testing"

	"github.com/feedbridge/feedbridge/core"
)

// RunExtra runs the cases of the *_extra.go files with the same fixture as Run.
func RunExtra(t *testing.T, open func(t *testing.T) core.Store) {
	groups := []struct {
		name  string
		tests map[string]func(t *testing.T, f *fixture)
	}{
		{"Races", raceTests},
		{"Text", textTests},
	}
	for _, g := range groups {
		t.Run(g.name, func(t *testing.T) {
			for _, name := range sortedKeys(g.tests) {
				fn := g.tests[name]
				t.Run(name, func(t *testing.T) { fn(t, newFixture(t, open(t))) })
			}
		})
	}
}
