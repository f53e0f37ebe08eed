// Package all is the one place that lists every connector kind, so the daemon and `config check` build
// them without naming each package.
package all

import (
	"errors"
	"fmt"
	"io"
	"sort"

	"github.com/sirupsen/logrus"

	"github.com/feedbridge/feedbridge/connectors"
	"github.com/feedbridge/feedbridge/connectors/csvimport"
	"github.com/feedbridge/feedbridge/connectors/email"
	"github.com/feedbridge/feedbridge/connectors/slack"
)

// Builders maps each kind, as named under `connectors:` in the config, to its builder.
func Builders() map[string]connectors.Builder {
	return map[string]connectors.Builder{
		"slack": slack.Build,
		"email": email.Build,
		"csv":   csvimport.Build,
	}
}

// Build makes a Set for every kind that has entries.
func Build(byKind map[string][]map[string]any, env connectors.Env) ([]connectors.Set, error) {
	builders := Builders()
	var (
		sets []connectors.Set
		errs []error
	)
	for _, kind := range sortedKinds(byKind) {
		entries := byKind[kind]
		if len(entries) == 0 {
			continue
		}
		b, ok := builders[kind]
		if !ok {
			errs = append(errs, fmt.Errorf("connectors.%s: unknown connector kind", kind))
			continue
		}
		s, err := b(entries, env.WithKind(kind))
		if err != nil {
			errs = append(errs, fmt.Errorf("connectors.%s: %w", kind, err))
			continue
		}
		sets = append(sets, s)
	}
	return sets, errors.Join(errs...)
}

// Validate builds every kind offline (builders make no network calls) and returns each problem.
func Validate(byKind map[string][]map[string]any) []error {
	l := logrus.New()
	l.SetOutput(io.Discard)
	_, err := Build(byKind, connectors.Env{Log: logrus.NewEntry(l)})
	if err == nil {
		return nil
	}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	return []error{err}
}

func sortedKinds(m map[string][]map[string]any) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}
