package email

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"sync"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/feedbridge/feedbridge/connectors"
)

var _ connectors.Builder = Build

// Build is the connectors.Builder of `connectors.email`: it validates every entry without network calls and
// returns a Set that polls each mailbox on one replica at a time.
func Build(entries []map[string]any, env connectors.Env) (connectors.Set, error) {
	env = withDefaults(env)
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

func withDefaults(env connectors.Env) connectors.Env {
	if env.Now == nil {
		env.Now = time.Now
	}
	if env.Log == nil {
		l := logrus.New()
		l.SetOutput(io.Discard)
		env.Log = logrus.NewEntry(l)
	}
	if env.Leases == nil && env.Service != nil {
		env.Leases = env.Service.Store()
	}
	if env.Holder == "" {
		host, _ := os.Hostname()
		env.Holder = host + "-" + strconv.Itoa(os.Getpid())
	}
	return env
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
