package connectors

import (
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

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
// fault and the items it refused. A refusal is not a fault: it never shows in last_error, so /readyz does
// not list the entry for it, and a success does not clear it.
type note struct {
	lastSuccess time.Time
	lastError   string
	refusals    int64 // items refused and not yet written to the store (the store adds them up)
	lastRefusal string
	refusedAt   time.Time
}

// refuse counts one refusal at t.
func (n *note) refuse(reason string, t time.Time) {
	n.refusals++
	n.lastRefusal, n.refusedAt = shortReason(reason), t
}

// status is the ConnectorStatus the note describes, carrying the refusals not yet written.
func (n note) status(ws core.ID, kind, name string, state State) core.ConnectorStatus {
	return core.ConnectorStatus{Workspace: ws, Name: name, Kind: kind, State: string(state),
		LastSuccessAt: n.lastSuccess, LastError: n.lastError,
		Refused: n.refusals, LastRefused: n.lastRefusal, LastRefusedAt: n.refusedAt}
}

// written forgets the refusals a successful write of st carried: the store has counted them.
func (n *note) written(st core.ConnectorStatus) { n.refusals -= st.Refused }

// maxReason is how many characters of a refusal's reason are kept.
const maxReason = 200

// shortReason is reason as last_refused shows it: on one line, without control characters, and cut to
// maxReason characters, so that a reason quoting outside text keeps only a short excerpt of it.
func shortReason(reason string) string {
	var b strings.Builder
	n, space := 0, false
	for _, r := range strings.TrimSpace(reason) {
		if unicode.IsSpace(r) || unicode.IsControl(r) || r == utf8.RuneError {
			space = true
			continue
		}
		if n == maxReason {
			b.WriteString("…")
			break
		}
		if space && n > 0 {
			b.WriteByte(' ')
			n++
		}
		space = false
		b.WriteRune(r)
		n++
	}
	return b.String()
}
