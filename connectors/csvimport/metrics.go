package csvimport

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/feedbridge/feedbridge/core"
)

// metrics count the scheduled imports' outcomes per entry.
type metrics struct {
	rows *prometheus.CounterVec // outcome: created | duplicate | failed
	runs *prometheus.CounterVec // status: succeeded | failed
}

// newMetrics makes and registers the kind's metrics; connectors.Metrics calls it once per registry.
func newMetrics(reg prometheus.Registerer) (*metrics, error) {
	m := &metrics{
		rows: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "feedbridge_csv_rows_total", Help: "CSV rows read by scheduled imports, by outcome (created, duplicate, failed).",
		}, []string{"connector", "outcome"}),
		runs: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "feedbridge_csv_runs_total", Help: "Scheduled CSV import runs, by final status.",
		}, []string{"connector", "status"}),
	}
	for _, c := range []prometheus.Collector{m.rows, m.runs} {
		if err := reg.Register(c); err != nil {
			return nil, err
		}
	}
	return m, nil
}

func (m *metrics) observe(connector string, run core.ImportRun) {
	if run.Status == "" || run.Status == core.ImportRunning {
		return
	}
	m.rows.WithLabelValues(connector, "created").Add(float64(run.Created))
	m.rows.WithLabelValues(connector, "duplicate").Add(float64(run.Duplicates))
	m.rows.WithLabelValues(connector, "failed").Add(float64(run.Failed))
	m.runs.WithLabelValues(connector, run.Status).Inc()
}
