package email

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/feedbridge/feedbridge/connectors"
)

var _ connectors.Builder = Build

// Build is the connectors.Builder of `connectors.email`: it validates every entry without network calls and
// returns a Set that polls each mailbox on one replica at a time.
func Build(entries []map[string]any, env connectors.Env) (connectors.Set, error) {
	env = env.WithDefaults()
	m := newMetrics(env.Metrics)
	s := &set{env: env}
	var errs []error
	for i, raw := range entries {
		name := connectors.EntryName(raw, i)
		var c Config
		if err := connectors.Decode(raw, &c); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", name, err))
			continue
		}
		sp, err := parseConfig(c)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", name, err))
			continue
		}
		s.entries = append(s.entries, newEntry(sp, env, m))
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return s, nil
}

type set struct {
	env     connectors.Env
	entries []*entry
}

// Run polls every mailbox until ctx ends. Each mailbox holds the lease "email:<name>" while it is polled.
func (s *set) Run(ctx context.Context) error {
	for _, w := range s.Warnings() {
		s.env.Log.Warn("email: " + w)
	}
	var wg sync.WaitGroup
	for _, e := range s.entries {
		wg.Go(func() { connectors.RunExclusive(ctx, s.env, "email:"+e.spec.Name, e.run) })
	}
	wg.Wait()
	return nil
}
