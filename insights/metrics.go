package insights

import (
	"errors"
	"fmt"

	"github.com/prometheus/client_golang/prometheus"
)

// poolMetrics are the queue's Prometheus series. They belong to one pool; registering a second pool on
// the same registry is an error rather than silently shared counters.
type poolMetrics struct {
	depth     prometheus.Gauge
	duration  *prometheus.HistogramVec
	lag       prometheus.Histogram
	completed *prometheus.CounterVec
	failures  *prometheus.CounterVec
}

func newPoolMetrics(reg prometheus.Registerer) (*poolMetrics, error) {
	m := &poolMetrics{
		depth: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "feedbridge_insight_queue_depth",
			Help: "Insight jobs queued or running, across all replicas.",
		}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "feedbridge_insight_job_duration_seconds",
			Help:    "Time to process one insight job (read, extract, store), by extractor.",
			Buckets: []float64{.001, .005, .01, .05, .1, .5, 1, 5, 15, 60, 180},
		}, []string{"extractor"}),
		lag: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "feedbridge_insight_job_lag_seconds",
			Help:    "Time from a feedback's creation (job enqueued) to its insights being stored.",
			Buckets: []float64{.01, .05, .1, .5, 1, 5, 15, 60, 300, 1800, 7200},
		}),
		completed: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "feedbridge_insight_jobs_completed_total",
			Help: "Insight jobs completed, by extractor.",
		}, []string{"extractor"}),
		failures: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "feedbridge_insight_job_failures_total",
			Help: "Failed insight job attempts by extractor; final=\"true\" when the job was kept as failed.",
		}, []string{"extractor", "final"}),
	}
	if reg == nil {
		return m, nil
	}
	for _, c := range []prometheus.Collector{m.depth, m.duration, m.lag, m.completed, m.failures} {
		if err := reg.Register(c); err != nil {
			var already prometheus.AlreadyRegisteredError
			if errors.As(err, &already) {
				return nil, fmt.Errorf("insights: metrics already registered (one pool per registry): %w", err)
			}
			return nil, fmt.Errorf("insights: register metrics: %w", err)
		}
	}
	return m, nil
}
