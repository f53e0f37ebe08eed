package connectors

import (
	"reflect"
	"sync"

	"github.com/prometheus/client_golang/prometheus"
)

// A kind's metrics are registered once per registry, however many times the kind is built against it: the
// daemon builds each kind once to check the whole configuration and then once per entry it starts or
// restarts, and a registry refuses a second collector of the same name. Metrics makes them on the first
// build and hands the same value to every later one, so a kind registers its collectors the ordinary way
// (reg.Register, or MustRegister) in one function and never meets a duplicate.

type metricsKey struct {
	reg  prometheus.Registerer
	kind string
	typ  reflect.Type // what the kind's metrics function returns: tells kinds apart when Build is called directly
}

// kindMetrics holds what each kind's metrics function made, per registry and kind. It lives as long as
// the process, as the registries it is keyed by do.
var kindMetrics sync.Map // metricsKey → *metricsOnce

type metricsOnce struct {
	once sync.Once
	val  any
	err  error
}

// Metrics returns the metrics of the kind being built (env names it: see BuildKind) made by newMetrics,
// which registers them on reg. newMetrics runs once per kind and registry; every later build against the
// same env.Metrics gets the value it returned. Without env.Metrics (config check, a kind's unit test) the
// metrics are made on a private registry each time.
func Metrics[T any](env Env, newMetrics func(reg prometheus.Registerer) (T, error)) (T, error) {
	if env.Metrics == nil {
		return newMetrics(prometheus.NewRegistry())
	}
	v, _ := kindMetrics.LoadOrStore(metricsKey{reg: env.Metrics, kind: env.kind, typ: reflect.TypeFor[T]()}, &metricsOnce{})
	m := v.(*metricsOnce)
	m.once.Do(func() { m.val, m.err = newMetrics(env.Metrics) })
	if m.err != nil {
		var zero T
		return zero, m.err
	}
	return m.val.(T), nil
}

// kitMetrics are the series the kit keeps for every kind.
type kitMetrics struct {
	refused *prometheus.CounterVec // by kind and entry
}

// kitMetricsOf returns the kit's series on env.Metrics, registered once for all kinds.
func kitMetricsOf(env Env) (*kitMetrics, error) {
	env.kind = "" // one set for every kind
	return Metrics(env, func(reg prometheus.Registerer) (*kitMetrics, error) {
		m := &kitMetrics{refused: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "feedbridge_connector_refused_total",
			Help: "Items a connector entry read but refused to store (Entry.Refused), by kind and entry.",
		}, []string{"kind", "connector"})}
		return m, reg.Register(m.refused)
	})
}
