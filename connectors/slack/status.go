package slack

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/feedbridge/feedbridge/core"
)

// statusEvery is how often entry states are written for GET /api/connectors. Writing on every request
// would add a store write to each slash command for a figure nobody reads at that rate.
const statusEvery = 10 * time.Second

// statusBoard keeps each entry's last success and last error in memory between flushes.
type statusBoard struct {
	svc     *core.Service
	now     func() time.Time
	mu      sync.Mutex
	entries map[string]*entryStatus
	order   []*app
}

type entryStatus struct {
	lastSuccess time.Time
	lastError   string
}

func newStatusBoard(svc *core.Service, apps []*app, now func() time.Time) *statusBoard {
	b := &statusBoard{svc: svc, now: now, entries: map[string]*entryStatus{}, order: apps}
	for _, a := range apps {
		b.entries[a.Name] = &entryStatus{}
	}
	return b
}

// succeeded notes a saved record; it clears the last error, which no longer describes the entry.
func (b *statusBoard) succeeded(a *app) {
	b.mu.Lock()
	defer b.mu.Unlock()
	e := b.entries[a.Name]
	e.lastSuccess, e.lastError = b.now(), ""
}

// failed notes a fault of feedbridge or Slack (not a user's mistake such as a missing title).
func (b *statusBoard) failed(a *app, msg string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.entries[a.Name].lastError = msg
}

// flush writes every entry's state; a store that is down only costs a log line.
func (b *statusBoard) flush(ctx context.Context, state string) {
	for _, a := range b.order {
		b.mu.Lock()
		e := *b.entries[a.Name]
		b.mu.Unlock()
		st := core.ConnectorStatus{Workspace: a.workspace, Name: a.Name, Kind: "slack", State: state,
			LastSuccessAt: e.lastSuccess, LastError: e.lastError}
		if err := b.svc.ReportConnector(ctx, st); err != nil {
			a.log.WithError(err).Warn("slack: report connector status")
		}
	}
}

// metrics counts requests by endpoint and outcome.
type metrics struct {
	requests *prometheus.CounterVec
}

func newMetrics(reg prometheus.Registerer) (*metrics, error) {
	c := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "feedbridge_slack_requests_total",
		Help: "Slack requests by endpoint (command, shortcut, modal) and outcome.",
	}, []string{"endpoint", "outcome"})
	if reg != nil {
		if err := reg.Register(c); err != nil {
			var dup prometheus.AlreadyRegisteredError
			if !errors.As(err, &dup) {
				return nil, err
			}
			c = dup.ExistingCollector.(*prometheus.CounterVec)
		}
	}
	return &metrics{requests: c}, nil
}

func (m *metrics) count(endpoint, outcome string) {
	m.requests.WithLabelValues(endpoint, outcome).Inc()
}
