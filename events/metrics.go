package events

import (
	"github.com/prometheus/client_golang/prometheus"
)

// metrics of delivery, by subscriber.
type metrics struct {
	delivered, retried, failed *prometheus.CounterVec
	lag                        *prometheus.HistogramVec
	pending                    *prometheus.GaugeVec
}

func newMetrics(reg prometheus.Registerer) (*metrics, error) {
	m := &metrics{
		delivered: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "feedbridge_events_delivered_total",
			Help: "Events a subscriber acknowledged with a 2xx."}, []string{"subscriber"}),
		retried: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "feedbridge_events_retried_total",
			Help: "Failed deliveries that will be tried again."}, []string{"subscriber"}),
		failed: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "feedbridge_events_failed_total",
			Help: "Events given up on after retry_for and kept as failed."}, []string{"subscriber"}),
		lag: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "feedbridge_events_lag_seconds",
			Help:    "Time from a change's commit to its event's acknowledged delivery.",
			Buckets: []float64{.01, .05, .1, .25, .5, 1, 2.5, 5, 15, 60, 300, 1800, 3600, 21600, 86400}}, []string{"subscriber"}),
		pending: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "feedbridge_events_pending",
			Help: "Events queued or being delivered, by subscriber (sampled)."}, []string{"subscriber"}),
	}
	if reg == nil {
		return m, nil
	}
	for _, c := range []prometheus.Collector{m.delivered, m.retried, m.failed, m.lag, m.pending} {
		if err := reg.Register(c); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// forget drops a removed subscriber's series.
func (m *metrics) forget(name string) {
	for _, v := range []*prometheus.MetricVec{m.delivered.MetricVec, m.retried.MetricVec, m.failed.MetricVec, m.lag.MetricVec, m.pending.MetricVec} {
		v.DeleteLabelValues(name)
	}
}
