package core

import (
	"slices"
	"sync"
)

// ConnectorError is the state a connector reports while its last attempt failed; ConnectorStopped the one
// it reports as it stops.
const (
	ConnectorError   = "error"
	ConnectorStopped = "stopped"
)

// Faults is what this process knows is failing outside the store right now: connectors whose last attempt
// failed and an insight extractor whose last call failed. /readyz lists them by name, without taking the
// replica out of service: an outside source that is down is no reason to stop serving the API.
type Faults struct {
	mu     sync.Mutex
	active map[string]bool
}

// Set marks name failing or recovered.
func (f *Faults) Set(name string, failing bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.active == nil {
		f.active = map[string]bool{}
	}
	if failing {
		f.active[name] = true
	} else {
		delete(f.active, name)
	}
}

// List is the failing names, sorted.
func (f *Faults) List() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make([]string, 0, len(f.active))
	for n := range f.active {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}
