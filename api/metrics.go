package api

import (
	"errors"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/feedbridge/feedbridge/core"
)

// Metrics holds the daemon's Prometheus series. It is also the core.Observer that counts created records,
// so records from every connector are counted, not only those of the API.
type Metrics struct {
	requests *prometheus.CounterVec
	latency  *prometheus.HistogramVec
	created  *prometheus.CounterVec
	gatherer prometheus.Gatherer
	// series holds each route and status's children of requests and latency, found once: the vectors
	// would hash the label values on every request.
	series sync.Map // routeStatus → routeSeries
}

type routeStatus struct {
	route  string
	status int
}

type routeSeries struct {
	requests prometheus.Counter
	latency  prometheus.Observer
}

var _ core.Observer = (*Metrics)(nil)

// NewMetrics registers the series on reg. With a nil reg it makes a private registry that also carries
// the Go runtime and process collectors. Registering twice on one registry reuses the first series.
// /metrics serves reg when it is also a Gatherer, else the default gatherer.
func NewMetrics(reg prometheus.Registerer) (*Metrics, error) {
	var g prometheus.Gatherer = prometheus.DefaultGatherer
	if reg == nil {
		r := prometheus.NewRegistry()
		r.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
		reg, g = r, r
	} else if rg, ok := reg.(prometheus.Gatherer); ok {
		g = rg
	}
	m := &Metrics{gatherer: g}
	var err error
	if m.requests, err = register(reg, prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "feedbridge_http_requests_total", Help: "HTTP requests by route pattern and status code.",
	}, []string{"route", "status"})); err != nil {
		return nil, err
	}
	if m.latency, err = register(reg, prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name: "feedbridge_http_request_duration_seconds", Help: "HTTP request latency by route pattern.",
		Buckets: []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10},
	}, []string{"route"})); err != nil {
		return nil, err
	}
	if m.created, err = register(reg, prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "feedbridge_records_created_total", Help: "Records created, by normalized source and record type.",
	}, []string{"source", "type"})); err != nil {
		return nil, err
	}
	return m, nil
}

func register[C prometheus.Collector](reg prometheus.Registerer, c C) (C, error) {
	if err := reg.Register(c); err != nil {
		var are prometheus.AlreadyRegisteredError
		if errors.As(err, &are) {
			if old, ok := are.ExistingCollector.(C); ok {
				return old, nil
			}
		}
		return c, err
	}
	return c, nil
}

// RecordCreated implements core.Observer.
func (m *Metrics) RecordCreated(source string, t core.RecordType) {
	m.created.WithLabelValues(source, string(t)).Inc()
}

// Handler serves the registry in the Prometheus exposition format.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.gatherer, promhttp.HandlerOpts{})
}

func (m *Metrics) observe(route string, status int, d time.Duration) {
	k := routeStatus{route, status}
	v, ok := m.series.Load(k)
	if !ok {
		v, _ = m.series.LoadOrStore(k, routeSeries{
			requests: m.requests.WithLabelValues(route, strconv.Itoa(status)),
			latency:  m.latency.WithLabelValues(route),
		})
	}
	rs := v.(routeSeries)
	rs.requests.Inc()
	rs.latency.Observe(d.Seconds())
}
