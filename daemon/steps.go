package daemon

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/sirupsen/logrus"

	"github.com/feedbridge/feedbridge/api"
	"github.com/feedbridge/feedbridge/config"
	"github.com/feedbridge/feedbridge/connectors"
	"github.com/feedbridge/feedbridge/console"
	"github.com/feedbridge/feedbridge/core"
	"github.com/feedbridge/feedbridge/events"
	"github.com/feedbridge/feedbridge/insights"
	"github.com/feedbridge/feedbridge/suggest"
)

// server holds the pieces of a running daemon as Run's steps build them, in this order: the service
// (with its metrics and the insight workers), the connectors, the HTTP server, then the background work.
type server struct {
	cfg  *config.Config
	opts Options
	log  *logrus.Entry
	st   core.Store

	reg     *prometheus.Registry
	metrics *api.Metrics
	faults  *core.Faults
	workers *insights.Pool // nil when insights are off
	svc     *core.Service

	holder  string // this replica in leases
	sup     *supervisor
	deliver *events.Manager
	reloads *reloader
	pool    *connPool
	http    *http.Server
}

// buildService makes the metrics registry, the insight workers and the service every door goes through.
func (d *server) buildService() error {
	d.reg = prometheus.NewRegistry()
	d.reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	d.reg.MustRegister(buildInfo(d.opts.Version))
	var err error
	if d.metrics, err = api.NewMetrics(d.reg); err != nil {
		return err
	}
	d.faults = &core.Faults{}
	if d.workers, err = newWorkers(d.cfg, d.st, d.faults, d.reg, d.log); err != nil {
		return err
	}
	obs := observers{d.metrics}
	if d.workers != nil {
		obs = append(obs, d.workers) // a new feedback wakes an idle pool at once
	}
	d.svc = core.NewService(d.st, core.Options{
		Companies: core.NewCompanyResolver(d.cfg.Companies.PersonalDomains.Add, d.cfg.Companies.PersonalDomains.Remove),
		Observer:  obs,
		Faults:    d.faults,
		Sources:   d.cfg.SourceSet(),
		Matcher:   suggest.New(d.st, suggest.Options{}),
		// Event bodies show a record exactly as the API does.
		RecordView: api.NewRecordView,
	})
	return nil
}

// startConnectors builds every configured connector entry and starts it under the supervisor, which
// also applies later reloads. The connectors get the service as their one door (connectors.Service).
func (d *server) startConnectors(bgCtx context.Context) error {
	d.holder = holderID()
	env := connectors.Env{Service: d.svc, Log: d.log.WithField("component", "connectors"), Metrics: d.reg, Holder: d.holder,
		Lease: leaseTiming(d.cfg.Store.URL), Now: time.Now}
	d.sup = newSupervisor(bgCtx, env, d.svc.Faults(), d.log.WithField("component", "connectors"))
	if err := d.sup.apply(d.cfg.Connectors); err != nil {
		return fmt.Errorf("connectors: %w", err)
	}
	return nil
}

// startEvents starts delivering record events to the configured subscribers. Delivery runs on the
// background context: it stops after HTTP, so the events of the last requests are committed (and kept)
// before the workers stop; whatever is not delivered waits in the store.
func (d *server) startEvents(bgCtx context.Context) error {
	subs, err := d.cfg.Subscribers()
	if err != nil {
		return err
	}
	if d.deliver, err = events.New(bgCtx, events.Options{Queue: d.st, Subscribe: d.svc.SetSubscribers, Holder: d.holder,
		Log: d.log, Metrics: d.reg}); err != nil {
		return err
	}
	d.deliver.Apply(subs)
	return nil
}

// buildHTTP makes the API with the console and the connectors' routes, the reloader that SIGHUP drives,
// and the HTTP server with its connection pool.
func (d *server) buildHTTP() error {
	cfg, log, sup := d.cfg, d.log, d.sup
	srv := api.New(d.svc, api.Options{
		Log:       log.WithField("component", "http"),
		RateLimit: api.RateLimit{PerSecond: cfg.HTTP.RateLimit.PerSecond, Burst: cfg.HTTP.RateLimit.Burst},
		Metrics:   d.metrics,
		// The registered kinds, so the document lists every kind this binary runs.
		ConnectorKinds: connectors.Names(),
		Sources:        cfg.SourceSet().Labels(),
		// The connectors' routes (Slack's) change with reloads; the supervisor serves the current ones.
		// The console's more specific patterns win over the supervisor's catch-all.
		Extra: func(mux *http.ServeMux) {
			mux.Handle("/", sup)
			if cfg.Console.Enabled {
				console.New(d.svc, console.Options{Log: log.WithField("component", "console"), PublicURL: cfg.Console.PublicURL,
					UploadDir: cfg.Console.UploadDir, UploadLimit: cfg.Console.MaxUpload,
					Configured: configuredFunc(func() map[string][]map[string]any { return d.reloads.current().Connectors })}).Register(mux)
			}
		},
		// Set before the server serves: d.reloads is assigned just below.
		Configured:  configuredFunc(func() map[string][]map[string]any { return d.reloads.current().Connectors }),
		Subscribers: d.deliver.Status,
	})
	var err error
	if d.reloads, err = newReloader(cfg, d.opts.Reload, sup, srv, log.WithField("component", "reload"), d.faults, d.reg); err != nil {
		return err
	}
	d.reloads.events = d.deliver
	if d.pool, err = newConnPool(cfg.HTTP.MaxConnections, cfg.HTTP.MaxConnectionsPerClient, d.reg); err != nil {
		return err
	}
	d.http = &http.Server{
		Handler:           reserveGuard(srv.Handler()),
		ReadHeaderTimeout: cfg.HTTP.ReadHeaderTimeout,
		ReadTimeout:       cfg.HTTP.ReadTimeout,
		WriteTimeout:      cfg.HTTP.WriteTimeout,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    cfg.HTTP.MaxHeaderBytes,
		ConnState:         d.pool.track,
		ConnContext:       connContext,
		ErrorLog:          nil,
	}
	return nil
}

// startBackground starts closing the loop (notifications when an idea moves), the flush of the connectors'
// daily counts, each kind's sweep
// (whatever the configuration holds: a killed CLI import leaves a run to close) and the insight workers,
// until bgCtx ends.
func (d *server) startBackground(bgCtx context.Context) (*sync.WaitGroup, error) {
	var wg sync.WaitGroup
	nt, err := startNotify(bgCtx, &wg, d.cfg, d.svc, d.st, d.holder, d.reg, d.log.WithField("component", "notify"))
	if err != nil {
		return nil, err
	}
	d.reloads.onApply = append(d.reloads.onApply, nt.apply)
	wg.Go(func() { flushCounts(bgCtx, d.svc, d.log) })
	for _, k := range connectors.Kinds() {
		if k.Sweep != nil {
			wg.Go(func() {
				k.Sweep(bgCtx, d.svc, d.log.WithFields(logrus.Fields{"component": "connectors", "connector_kind": k.Name}))
			})
		}
	}
	if d.workers != nil {
		wg.Go(func() {
			if err := d.workers.Run(bgCtx); err != nil {
				d.log.WithError(err).Error("insight workers stopped")
			}
		})
	}
	return &wg, nil
}

// serve answers HTTP on ln and reloads the configuration on SIGHUP until ctx ends (nil) or the server
// fails (its error).
func (d *server) serve(ctx context.Context, ln net.Listener, hup <-chan os.Signal) error {
	serveErr := make(chan error, 1)
	go func() { serveErr <- d.http.Serve(ln) }()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-hup:
			if d.opts.Reload == nil {
				d.log.Warn("reload: SIGHUP ignored: this daemon has no configuration loader")
				continue
			}
			d.reloads.reload()
		case err := <-serveErr:
			return fmt.Errorf("http server: %w", err)
		}
	}
}

// shutdown stops in order: the connectors that hold leases give them back while HTTP finishes in-flight
// requests; then the background work and the other connectors stop.
func (d *server) shutdown(stopBackground context.CancelFunc, background *sync.WaitGroup) {
	d.log.Info("shutting down: handing leases back, finishing in-flight requests")
	var handover sync.WaitGroup
	handover.Go(d.sup.stopExclusive)
	shutCtx, cancel := context.WithTimeout(context.Background(), d.reloads.current().HTTP.ShutdownTimeout)
	defer cancel()
	if err := d.http.Shutdown(shutCtx); err != nil {
		d.log.WithError(err).Warn("http shutdown did not finish in time")
	}
	handover.Wait()
	stopBackground()
	d.sup.wait()
	background.Wait()
	finalFlush(d.svc, d.log) // what the stopped connectors counted last
	d.log.Info("stopped")
}
