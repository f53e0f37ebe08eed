package email

import (
	"context"
	"fmt"
	"sync"

	"github.com/feedbridge/feedbridge/connectors"
)

var _ connectors.Builder = Build

// Build is the connectors.Builder of `connectors.email`: it validates every entry without network calls and
// returns a Set that polls each mailbox on one replica at a time.
func Build(entries []map[string]any, env connectors.Env) (connectors.Set, error) {
	env = env.WithDefaults()
	m, err := connectors.Metrics(env, newMetrics)
	if err != nil {
		return nil, fmt.Errorf("metrics: %w", err)
	}
	es, err := connectors.Entries(Kind, entries, env, func(en connectors.Entry, c *Config) (*entry, error) {
		sp, err := parseConfig(*c)
		if err != nil {
			return nil, err
		}
		return newEntry(en, sp, env, m), nil
	})
	if err != nil {
		return nil, err
	}
	return &set{env: env, entries: es}, nil
}

// Kind is the key of this connector under `connectors:`.
const Kind = "email"

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
		wg.Go(func() { e.RunExclusive(ctx, s.env, e.run) })
	}
	wg.Wait()
	return nil
}
