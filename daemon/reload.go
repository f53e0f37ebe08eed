package daemon

import (
	"errors"
	"reflect"
	"sync"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/sirupsen/logrus"

	"github.com/feedbridge/feedbridge/api"
	"github.com/feedbridge/feedbridge/config"
	"github.com/feedbridge/feedbridge/core"
	"github.com/feedbridge/feedbridge/events"
)

// reloadFault is the name under which /readyz lists a refused configuration until a reload succeeds.
const reloadFault = "config reload"

// reloader re-reads the configuration on SIGHUP and applies what can change in a running daemon: the
// connectors (through the supervisor), the log level and format, and the API's rate limit. The rest is
// named in the log as needing a restart.
type reloader struct {
	mu      sync.Mutex
	cur     *config.Config
	load    func() (*config.Config, error)
	sup     *supervisor
	events  *events.Manager // nil in tests that build a reloader without delivery
	srv     *api.Server
	log     *logrus.Entry
	faults  *core.Faults
	results *prometheus.CounterVec
	ok      prometheus.Gauge
	// onApply are told of each configuration applied (set before the first reload).
	onApply []func(*config.Config)
}

func newReloader(cur *config.Config, load func() (*config.Config, error), sup *supervisor, srv *api.Server,
	log *logrus.Entry, faults *core.Faults, reg prometheus.Registerer) (*reloader, error) {
	r := &reloader{cur: cur, load: load, sup: sup, srv: srv, log: log, faults: faults,
		results: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "feedbridge_config_reloads_total",
			Help: "Configuration reloads (SIGHUP, feedbridge reload) by result: applied or refused."}, []string{"result"}),
		ok: prometheus.NewGauge(prometheus.GaugeOpts{Name: "feedbridge_config_last_reload_successful",
			Help: "1 when the last configuration reload was applied (or none was tried), 0 when it was refused."}),
	}
	r.ok.Set(1)
	for _, c := range []prometheus.Collector{r.results, r.ok} {
		if err := reg.Register(c); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// current is the configuration in force.
func (r *reloader) current() *config.Config {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.cur
}

// reload reads the configuration again and applies it whole, or keeps the running one and logs every
// problem of the new one.
func (r *reloader) reload() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.log.Info("reload: reading the configuration")
	next, err := r.load()
	var problems []error
	switch {
	case err != nil:
		problems = split(err)
	case len(next.Validate()) > 0:
		// The connectors are checked too, so that one reload names every problem of the file.
		problems = append(next.Validate(), split(r.sup.check(next.Connectors))...)
	case len(next.SubscriberSecretProblems()) > 0:
		problems = append(next.SubscriberSecretProblems(), split(r.sup.check(next.Connectors))...)
	default:
		problems = split(r.sup.apply(next.Connectors))
		if subs, err := next.Subscribers(); err != nil {
			problems = append(problems, err)
		} else if len(problems) == 0 && r.events != nil {
			r.events.Apply(subs)
		}
	}
	if len(problems) > 0 {
		for _, p := range problems {
			r.log.WithField("problem", p.Error()).Error("reload: problem in the new configuration")
		}
		r.log.WithField("problems", len(problems)).Error("reload: refused; the running configuration is kept")
		r.faults.Set(reloadFault, true)
		r.results.WithLabelValues("refused").Inc()
		r.ok.Set(0)
		return
	}
	if next.Log != r.cur.Log {
		if err := applyLog(r.log.Logger, next.Log); err != nil { // validated already; kept for safety
			r.log.WithError(err).Error("reload: log settings")
		}
	}
	if next.HTTP.RateLimit != r.cur.HTTP.RateLimit {
		r.srv.SetRateLimit(api.RateLimit{PerSecond: next.HTTP.RateLimit.PerSecond, Burst: next.HTTP.RateLimit.Burst})
	}
	if keys := restartOnly(r.cur, next); len(keys) > 0 {
		r.log.WithField("settings", keys).Warn("reload: these settings changed and take effect only after a restart")
	}
	r.cur = next
	for _, fn := range r.onApply {
		fn(next)
	}
	r.faults.Set(reloadFault, false)
	r.results.WithLabelValues("applied").Inc()
	r.ok.Set(1)
	r.log.Info("reload: configuration applied")
}

// split is the list of problems in err: each of a joined error, nil for nil.
func split(err error) []error {
	if err == nil {
		return nil
	}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		var out []error
		for _, e := range j.Unwrap() {
			out = append(out, split(e)...)
		}
		return out
	}
	return []error{err}
}

// restartOnly names the settings that differ between a and b and that the running daemon cannot change:
// its listener, its store, its HTTP timeouts, the company grouping and the insight workers.
func restartOnly(a, b *config.Config) []string {
	var keys []string
	for _, c := range []struct {
		key  string
		a, b any
	}{
		{"http.listen", a.HTTP.Listen, b.HTTP.Listen},
		{"http.read_header_timeout", a.HTTP.ReadHeaderTimeout, b.HTTP.ReadHeaderTimeout},
		{"http.read_timeout", a.HTTP.ReadTimeout, b.HTTP.ReadTimeout},
		{"http.write_timeout", a.HTTP.WriteTimeout, b.HTTP.WriteTimeout},
		{"http.max_connections", a.HTTP.MaxConnections, b.HTTP.MaxConnections},
		{"http.max_connections_per_client", a.HTTP.MaxConnectionsPerClient, b.HTTP.MaxConnectionsPerClient},
		{"http.max_header_bytes", a.HTTP.MaxHeaderBytes, b.HTTP.MaxHeaderBytes},
		{"store.url", a.Store.URL, b.Store.URL},
		{"companies", a.Companies, b.Companies},
		{"insights", a.Insights, b.Insights},
		{"sources", a.Sources, b.Sources},
	} {
		if !reflect.DeepEqual(c.a, c.b) {
			keys = append(keys, c.key)
		}
	}
	return keys
}

// applyLog sets level and format on the process's logger; every entry derived from it follows.
func applyLog(l *logrus.Logger, c config.Log) error {
	lvl, err := logrus.ParseLevel(c.Level)
	if err != nil {
		return err
	}
	switch c.Format {
	case "json":
		l.SetFormatter(jsonFormatter())
	case "", "text":
		l.SetFormatter(textFormatter())
	default:
		return errors.New("log.format must be text or json")
	}
	l.SetLevel(lvl)
	return nil
}
