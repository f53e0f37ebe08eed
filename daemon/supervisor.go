package daemon

import (
	"context"
	"errors"
	"net/http"
	"reflect"
	"sort"
	"sync"
	"sync/atomic"

	"github.com/sirupsen/logrus"

	"github.com/feedbridge/feedbridge/connectors"
	"github.com/feedbridge/feedbridge/core"
)

// unitKey names what the supervisor starts and stops on its own: one entry of a kind whose entries run
// apart (a mailbox, a CSV schedule), or the whole of a kind that serves HTTP (Slack: its entries share
// the same endpoints and are told apart by request signature), whose name is then "".
type unitKey struct{ kind, name string }

func (k unitKey) String() string {
	if k.name == "" {
		return k.kind
	}
	return k.kind + ":" + k.name
}

// unit is one running Set and the raw configuration it was built from.
type unit struct {
	raw    any
	set    connectors.Set
	cancel context.CancelFunc
	done   chan struct{}
}

// supervisor runs the connectors and applies configuration changes entry by entry: what was added starts,
// what was removed stops (an exclusive entry gives its lease back as it stops), what changed restarts, and
// what is untouched keeps running. A kind whose entries share routes but run apart (connectors.Updater:
// the webhooks) is updated in place, so there too only the entries that changed start or stop. The HTTP routes of the kinds that serve them go through one handler
// that is swapped whole, so a request never finds them half-built.
type supervisor struct {
	ctx    context.Context // the units' parent; it ends at shutdown
	env    connectors.Env
	faults *core.Faults // the failing entries /readyz lists; a removed entry's is cleared
	log    *logrus.Entry
	mu     sync.Mutex // one apply at a time
	units  map[unitKey]*unit
	routes atomic.Pointer[http.ServeMux]
	wg     sync.WaitGroup
}

func newSupervisor(ctx context.Context, env connectors.Env, faults *core.Faults, log *logrus.Entry) *supervisor {
	s := &supervisor{ctx: ctx, env: env, faults: faults, log: log, units: map[unitKey]*unit{}}
	s.routes.Store(http.NewServeMux())
	return s
}

// ServeHTTP serves the connectors' own routes (outside /api).
func (s *supervisor) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.routes.Load().ServeHTTP(w, r)
}

// planned is one unit of a configuration, built and ready to start.
type planned struct {
	raw    any
	set    connectors.Set
	router bool
	update bool // the running unit takes set over in place (connectors.Updater) instead of restarting
}

// plan builds every unit of byKind that is not running with the same configuration already. Building
// makes no network call; any error refuses the whole configuration.
func (s *supervisor) plan(byKind map[string][]map[string]any) (map[unitKey]*planned, error) {
	want := map[unitKey]*planned{}
	var errs []error
	for _, kind := range connectors.KindsIn(byKind) {
		entries := byKind[kind]
		// The whole kind is built first: that validates its entries together (unique names, which Slack
		// entry signs for which team) and tells whether the kind serves HTTP.
		whole, err := connectors.BuildKind(kind, entries, s.env)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if _, ok := whole.(connectors.Router); ok {
			key := unitKey{kind: kind}
			u := s.units[key]
			_, updates := whole.(connectors.Updater)
			switch {
			case u != nil && reflect.DeepEqual(u.raw, entries):
				want[key] = &planned{raw: entries, router: true}
			case u != nil && updates:
				want[key] = &planned{raw: entries, set: whole, router: true, update: true}
			default:
				want[key] = &planned{raw: entries, set: whole, router: true}
			}
			continue
		}
		for i, e := range entries {
			key := unitKey{kind: kind, name: connectors.EntryName(e, i)}
			if u := s.units[key]; u != nil && reflect.DeepEqual(u.raw, e) {
				want[key] = &planned{raw: e}
				continue
			}
			one, err := connectors.BuildKind(kind, []map[string]any{e}, s.env)
			if err != nil {
				errs = append(errs, err)
				continue
			}
			want[key] = &planned{raw: e, set: one}
		}
	}
	return want, errors.Join(errs...)
}

// check builds the connectors of byKind without starting or stopping anything and returns every problem.
func (s *supervisor) check(byKind map[string][]map[string]any) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, err := s.plan(byKind)
	return err
}

// apply makes the running connectors those of byKind, or changes nothing and returns every problem.
func (s *supervisor) apply(byKind map[string][]map[string]any) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	want, err := s.plan(byKind)
	if err != nil {
		return err
	}
	var stopped, started []string
	// Exclusive entries that go or change stop first, so that their leases are free for their successors.
	var oldRouters []*unit
	for key, u := range s.units {
		p := want[key]
		if p != nil && p.set == nil {
			continue // untouched
		}
		if p != nil && p.update {
			// Only its added, changed and removed entries start and stop; the others keep running.
			up, down, err := updateInPlace(s.ctx, u.set, p.set)
			if err == nil {
				u.raw, p.set = p.raw, nil
				for _, n := range up {
					started = append(started, unitKey{kind: key.kind, name: n}.String())
				}
				for _, n := range down {
					stopped = append(stopped, unitKey{kind: key.kind, name: n}.String())
				}
				continue
			}
			s.log.WithError(err).WithField("unit", key.String()).Warn("connectors: update in place failed; restarting the kind")
		}
		delete(s.units, key)
		stopped = append(stopped, key.String())
		if key.name == "" {
			oldRouters = append(oldRouters, u) // stopped once the new routes serve
			continue
		}
		u.stop()
	}
	routesChanged := len(oldRouters) > 0
	fresh := map[unitKey]*unit{}
	for key, p := range want {
		if p.set == nil {
			continue
		}
		fresh[key] = &unit{raw: p.raw, set: p.set, done: make(chan struct{})}
		s.units[key] = fresh[key]
		started = append(started, key.String())
		routesChanged = routesChanged || p.router
	}
	// A router's handlers serve without its Run, which only reports status and drains deliveries: the new
	// routes go live first, then the old Set stops (its last status report says "stopped"), and only then
	// does the new one start reporting, so the last word on an entry that stays is "running".
	if routesChanged {
		mux := http.NewServeMux()
		for _, u := range s.units {
			if r, ok := u.set.(connectors.Router); ok {
				r.Routes(mux)
			}
		}
		s.routes.Store(mux)
	}
	for _, u := range oldRouters {
		u.stop()
	}
	for key, u := range fresh {
		s.start(key, u)
	}
	if s.faults != nil {
		clearRemovedFaults(s.faults, byKind)
	}
	sort.Strings(stopped)
	sort.Strings(started)
	if len(stopped)+len(started) > 0 {
		s.log.WithFields(logrus.Fields{"stopped": stopped, "started": started}).Info("connectors: applied the configuration")
	}
	return nil
}

func (s *supervisor) start(key unitKey, u *unit) {
	ctx, cancel := context.WithCancel(s.ctx)
	u.cancel = cancel
	s.wg.Go(func() {
		defer close(u.done)
		if err := u.set.Run(ctx); err != nil && ctx.Err() == nil {
			s.log.WithError(err).WithField("unit", key.String()).Error("connector stopped")
		}
	})
}

// stop ends the unit and waits until it has stopped (and released its leases).
func (u *unit) stop() {
	u.cancel()
	<-u.done
}

// wait returns once every unit has stopped, after the supervisor's context ended.
func (s *supervisor) wait() { s.wg.Wait() }

// stopExclusive stops the units that hold leases (every one but the HTTP-serving kinds), so that other
// replicas can take their entries over while this one still finishes its HTTP requests.
func (s *supervisor) stopExclusive() {
	s.mu.Lock()
	defer s.mu.Unlock()
	var wg sync.WaitGroup
	for key, u := range s.units {
		if key.name != "" {
			delete(s.units, key)
			wg.Go(u.stop)
		}
	}
	wg.Wait()
}

// updateInPlace has running take next over (connectors.Updater), or fails when it cannot.
func updateInPlace(ctx context.Context, running, next connectors.Set) (started, stopped []string, err error) {
	u, ok := running.(connectors.Updater)
	if !ok {
		return nil, nil, errors.New("the running set cannot be updated in place")
	}
	return u.Update(ctx, next)
}
