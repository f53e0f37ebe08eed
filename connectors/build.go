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
	for _, kind := range KindsIn(byKind) {
		s, err := BuildKind(kind, byKind[kind], env)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		sets = append(sets, s)
	}
	return sets, errors.Join(errs...)
}

// KindsIn returns the kinds of byKind that have entries, sorted, so that problems are listed in a stable
// order.
func KindsIn(byKind map[string][]map[string]any) []string {
	kinds := make([]string, 0, len(byKind))
	for k, entries := range byKind {
		if len(entries) > 0 {
			kinds = append(kinds, k)
		}
	}
	sort.Strings(kinds)
	return kinds
}

// BuildKind makes the Set of one kind from entries (all of the kind's entries, or some of them: the daemon
// builds an exclusive kind's entries one by one, to restart only those that change). Its logger names the
// kind, and errors start with "connectors.<kind>: ".
func BuildKind(kind string, entries []map[string]any, env Env) (Set, error) {
	k, ok := Lookup(kind)
	if !ok {
		return nil, fmt.Errorf("connectors.%s: unknown connector kind", kind)
	}
	s, err := k.Build(entries, env.WithKind(kind))
	if err != nil {
		return nil, fmt.Errorf("connectors.%s: %w", kind, err)
	}
	return s, nil
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
