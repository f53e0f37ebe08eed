package connectors

import (
	"errors"
	"fmt"
	"io"
	"sort"

	"github.com/sirupsen/logrus"
)

// BuildAll makes a Set for every kind that has entries, reporting every problem at once.
func BuildAll(byKind map[string][]map[string]any, env Env) ([]Set, error) {
	var (
		sets []Set
		errs []error
	)
	kinds := make([]string, 0, len(byKind))
	for k := range byKind {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	for _, name := range kinds {
		entries := byKind[name]
		if len(entries) == 0 {
			continue
		}
		k, ok := Lookup(name)
		if !ok {
			errs = append(errs, fmt.Errorf("connectors.%s: unknown connector kind", name))
			continue
		}
		s, err := k.Build(entries, env.WithKind(name))
		if err != nil {
			errs = append(errs, fmt.Errorf("connectors.%s: %w", name, err))
			continue
		}
		sets = append(sets, s)
	}
	return sets, errors.Join(errs...)
}

// ValidateAll builds every kind offline (builders make no network calls and get no Service) and returns
// each problem.
func ValidateAll(byKind map[string][]map[string]any) []error {
	l := logrus.New()
	l.SetOutput(io.Discard)
	_, err := BuildAll(byKind, Env{Log: logrus.NewEntry(l)})
	if err == nil {
		return nil
	}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	return []error{err}
}
