package connectors

import (
	"fmt"
	"slices"
	"time"

	"github.com/feedbridge/feedbridge/core"
)

// State is what GET /api/connectors shows as an entry's state. Every kind uses this vocabulary, so a
// dashboard or /readyz reads the state of any kind the same way; last_error and last_success_at say the
// rest.
type State string

// The states of an entry.
const (
	// StateStarting: connecting or logging in, before the entry can take input.
	StateStarting State = "starting"
	// StateRunning: ready for input (listening, or waiting for mail or for its next scheduled run).
	StateRunning State = "running"
	// StateBusy: working through a batch of input (a scheduled import is running).
	StateBusy State = "busy"
	// StateError: the last attempt failed and the entry retries; last_error says why.
	StateError State = core.ConnectorError
	// StateStopped: the daemon stopped the entry (shut down, or the entry left the configuration).
	StateStopped State = core.ConnectorStopped
)

// States lists the vocabulary.
var States = []State{StateStarting, StateRunning, StateBusy, StateError, StateStopped}

// Valid reports whether s is one of States.
func (s State) Valid() bool { return slices.Contains(States, s) }

// note is what an entry has done lately, as GET /api/connectors shows it: its last success, its last
// fault and the items it refused.
type note struct {
	lastSuccess time.Time
	lastError   string
	refusals    int // items refused since the entry started
	lastRefusal string
	refusedAt   time.Time
}

// refuse counts one refusal at t.
func (n *note) refuse(reason string, t time.Time) {
	n.refusals++
	n.lastRefusal, n.refusedAt = reason, t
}

// shownError is last_error: the last fault, then the refusals. A success does not clear refusals: the
// operator should see that something keeps sending what the entry cannot take.
// unit names what was refused ("requests", "items").
func (n note) shownError(unit string) string {
	if n.refusals == 0 {
		return n.lastError
	}
	ref := fmt.Sprintf("%d %s refused, the last at %s: %s", n.refusals, unit, n.refusedAt.UTC().Format(time.RFC3339), n.lastRefusal)
	if n.lastError == "" {
		return ref
	}
	return n.lastError + "; " + ref
}
