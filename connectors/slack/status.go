package slack

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// statusEvery is how often entry states are written for GET /api/connectors. Writing on every request
// would add a store write to each slash command for a figure nobody reads at that rate.
const statusEvery = 10 * time.Second

// metrics counts requests by endpoint and outcome.
type metrics struct {
	requests *prometheus.CounterVec
}

// newMetrics makes and registers the kind's metrics; connectors.Metrics calls it once per registry.
func newMetrics(reg prometheus.Registerer) (*metrics, error) {
	c := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "feedbridge_slack_requests_total",
		Help: "Slack requests by endpoint (command, shortcut, modal) and outcome.",
	}, []string{"endpoint", "outcome"})
	if err := reg.Register(c); err != nil {
		return nil, err
	}
	return &metrics{requests: c}, nil
}

func (m *metrics) count(endpoint, outcome string) {
	m.requests.WithLabelValues(endpoint, outcome).Inc()
}
