package notify

import (
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/feedbridge/feedbridge/core"
	"github.com/feedbridge/feedbridge/internal/queueworker"
)

// Metrics counts settled messages by channel and outcome; it is the queue workers' Observer.
type Metrics struct {
	settled *prometheus.CounterVec
}

var _ queueworker.Observer = (*Metrics)(nil)

// NewMetrics registers the counter with reg.
func NewMetrics(reg prometheus.Registerer) (*Metrics, error) {
	m := &Metrics{settled: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "feedbridge_notifications_total",
		Help: "Closing-the-loop messages by channel (slack, email) and outcome (done, retried, failed, released, lost)."},
		[]string{"channel", "outcome"})}
	if err := reg.Register(m.settled); err != nil {
		return nil, err
	}
	return m, nil
}

// Settled counts one settled message.
func (m *Metrics) Settled(it core.QueueItem, outcome queueworker.Outcome, _ error, _ time.Duration) {
	m.settled.WithLabelValues(strings.TrimPrefix(it.Queue, "notify:"), string(outcome)).Inc()
}
