// Package daemon assembles `feedbridge serve`: the store, the records service, the HTTP API, the connectors
// and the insight workers, and stops them in order when the context ends.
package daemon

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/sirupsen/logrus"

	"github.com/feedbridge/feedbridge/api"
	"github.com/feedbridge/feedbridge/config"
	"github.com/feedbridge/feedbridge/connectors"
	_ "github.com/feedbridge/feedbridge/connectors/all" // every connector kind
	"github.com/feedbridge/feedbridge/console"
	"github.com/feedbridge/feedbridge/core"
	"github.com/feedbridge/feedbridge/store"
	"github.com/feedbridge/feedbridge/suggest"
)

// Options are the flags of `serve` that are not configuration.
type Options struct {
	Demo    bool
	Out     io.Writer // where --demo prints the key
	Version string
	// Listening, when set, receives the bound address once the server accepts connections (tests).
	Listening func(addr string)
	// Reload reads the configuration again (the daemon validates it), for SIGHUP; nil: SIGHUP is ignored.
	Reload func() (*config.Config, error)
	// PIDFile, when set, is written with the process id while the daemon runs, for `feedbridge reload`.
	PIDFile string
}

// Run serves until ctx ends, then shuts down: the connectors that hold leases stop at once and give them
// back (so other replicas take over within a second) while HTTP stops accepting and finishes in-flight
// requests; then the other connectors and the workers stop at their next safe boundary, and the store
// closes. SIGHUP re-reads the configuration (see reloader).
func Run(ctx context.Context, cfg *config.Config, opts Options) error {
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	defer signal.Stop(hup)
	log, err := NewLogger(cfg.Log, os.Stderr)
	if err != nil {
		return err
	}
	st, err := store.Open(ctx, cfg.Store.URL)
	if err != nil {
		return fmt.Errorf("open store: %w", err)
	}
	defer st.Close()

	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	reg.MustRegister(buildInfo(opts.Version))
	metrics, err := api.NewMetrics(reg)
	if err != nil {
		return err
	}
	faults := &core.Faults{}
	workers, err := newWorkers(cfg, st, faults, reg, log)
	if err != nil {
		return err
	}
	obs := observers{metrics}
	if workers != nil {
		obs = append(obs, workers) // a new feedback wakes an idle pool at once
	}
	svc := core.NewService(st, core.Options{
		Companies: core.NewCompanyResolver(cfg.Companies.PersonalDomains.Add, cfg.Companies.PersonalDomains.Remove),
		Observer:  obs,
		Faults:    faults,
		Sources:   cfg.SourceSet(),
		Matcher:   suggest.New(st, suggest.Options{}),
		// Event bodies show a record exactly as the API does.
		RecordView: api.NewRecordView,
	})

	if opts.Demo {
		if err := seedDemo(ctx, svc, cfg, opts.Out); err != nil {
			return err
		}
	}

	bgCtx, stopBackground := context.WithCancel(context.WithoutCancel(ctx))
	defer stopBackground()
	env := connectors.Env{Service: svc, Log: log.WithField("component", "connectors"), Metrics: reg, Leases: st, Holder: holderID(),
		Lease: leaseTiming(cfg.Store.URL), Now: time.Now}
	sup := newSupervisor(bgCtx, env, log.WithField("component", "connectors"))
	if err := sup.apply(cfg.Connectors); err != nil {
		return fmt.Errorf("connectors: %w", err)
	}
	defer sup.wait()
	var reloads *reloader
	srv := api.New(svc, api.Options{
		Log:       log.WithField("component", "http"),
		RateLimit: api.RateLimit{PerSecond: cfg.HTTP.RateLimit.PerSecond, Burst: cfg.HTTP.RateLimit.Burst},
		Metrics:   metrics,
		// The registered kinds, so the document lists every kind this binary runs.
		ConnectorKinds: connectors.Names(),
		Sources:        cfg.SourceSet().Labels(),
		// The connectors' routes (Slack's) change with reloads; the supervisor serves the current ones.
		// The console's more specific patterns win over the supervisor's catch-all.
		Extra: func(mux *http.ServeMux) {
			mux.Handle("/", sup)
			if cfg.Console.Enabled {
				console.New(svc, console.Options{Log: log.WithField("component", "console"),
					Configured: configuredFunc(func() map[string][]map[string]any { return reloads.current().Connectors })}).Register(mux)
			}
		},
		// Set before the server serves: reloads is assigned just below.
		Configured: configuredFunc(func() map[string][]map[string]any { return reloads.current().Connectors }),
	})
	reloads, err = newReloader(cfg, opts.Reload, sup, srv, log.WithField("component", "reload"), faults, reg)
	if err != nil {
		return err
	}
	pool, err := newConnPool(cfg.HTTP.MaxConnections, cfg.HTTP.MaxConnectionsPerClient, reg)
	if err != nil {
		return err
	}
	httpSrv := &http.Server{
		Handler:           reserveGuard(srv.Handler()),
		ReadHeaderTimeout: cfg.HTTP.ReadHeaderTimeout,
		ReadTimeout:       cfg.HTTP.ReadTimeout,
		WriteTimeout:      cfg.HTTP.WriteTimeout,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    cfg.HTTP.MaxHeaderBytes,
		ConnState:         pool.track,
		ConnContext:       connContext,
		ErrorLog:          nil,
	}
	ln, err := listen(cfg.HTTP, pool)
	if err != nil {
		return err
	}
	if opts.PIDFile != "" {
		// Without the file only `feedbridge reload` is lost (SIGHUP still works): not worth refusing to start.
		if pf, err := writePIDFile(opts.PIDFile); err != nil {
			log.WithError(err).Warn("pid file not written; reload with SIGHUP")
		} else {
			defer pf.remove()
		}
	}
	log.WithFields(logrus.Fields{"addr": ln.Addr().String(), "store": storeKind(cfg.Store.URL)}).Info("feedbridge serving")
	if opts.Listening != nil {
		opts.Listening(ln.Addr().String())
	}

	var wg sync.WaitGroup
	// Each kind's sweep runs whatever the config holds (a killed CLI import leaves a run to close).
	for _, k := range connectors.Kinds() {
		if k.Sweep != nil {
			wg.Go(func() {
				k.Sweep(bgCtx, svc, log.WithFields(logrus.Fields{"component": "connectors", "connector_kind": k.Name}))
			})
		}
	}
	wg.Go(func() { flushCounts(bgCtx, svc, log) })
	if workers != nil {
		wg.Go(func() {
			if err := workers.Run(bgCtx); err != nil {
				log.WithError(err).Error("insight workers stopped")
			}
		})
	}

	serveErr := make(chan error, 1)
	go func() { serveErr <- httpSrv.Serve(ln) }()
wait:
	for {
		select {
		case <-ctx.Done():
			break wait
		case <-hup:
			if opts.Reload == nil {
				log.Warn("reload: SIGHUP ignored: this daemon has no configuration loader")
				continue
			}
			reloads.reload()
		case err := <-serveErr:
			stopBackground()
			wg.Wait()
			return fmt.Errorf("http server: %w", err)
		}
	}

	log.Info("shutting down: handing leases back, finishing in-flight requests")
	var handover sync.WaitGroup
	handover.Go(sup.stopExclusive)
	shutCtx, cancel := context.WithTimeout(context.Background(), reloads.current().HTTP.ShutdownTimeout)
	defer cancel()
	if err := httpSrv.Shutdown(shutCtx); err != nil {
		log.WithError(err).Warn("http shutdown did not finish in time")
	}
	handover.Wait()
	stopBackground()
	sup.wait()
	wg.Wait()
	finalFlush(svc, log) // what the stopped connectors counted last
	log.Info("stopped")
	return nil
}

// leaseTiming is short where replicas share the store and wait to take over each other's entries
// (PostgreSQL), long where one process owns it (SQLite).
func leaseTiming(url string) connectors.LeaseTiming {
	if storeKind(url) == "postgres" {
		return connectors.ShortLeases
	}
	return connectors.LongLeases
}

func storeKind(url string) string {
	if len(url) >= 8 && url[:8] == "postgres" {
		return "postgres"
	}
	return "sqlite"
}

// holderID names this replica for leases and job claims: host, pid and a random suffix so that a
// restarted process never inherits its predecessor's leases.
func holderID() string {
	host, _ := os.Hostname()
	var b [4]byte
	_, _ = rand.Read(b[:])
	return fmt.Sprintf("%s-%d-%s", host, os.Getpid(), hex.EncodeToString(b[:]))
}

func buildInfo(version string) prometheus.Collector {
	g := prometheus.NewGauge(prometheus.GaugeOpts{Name: "feedbridge_build_info", Help: "Build information.", ConstLabels: prometheus.Labels{"version": version}})
	g.Set(1)
	return g
}

// DemoMember is the admin member that --demo creates.
const DemoMember = "demo@example.com"

// seedDemo creates the demo workspace on an empty store and prints its key once.
func seedDemo(ctx context.Context, svc *core.Service, cfg *config.Config, out io.Writer) error {
	ws, key, created, err := svc.SeedDemo(ctx)
	if err != nil {
		return fmt.Errorf("demo: %w", err)
	}
	if !created {
		// key list shows a key's id and prefix only: a lost key cannot be shown again, only replaced.
		fmt.Fprintln(out, "demo: the store already has a workspace; nothing seeded. An API key is shown only once, "+
			"when it is created: for a new one run `feedbridge key create --workspace ID` (ids: `feedbridge workspace list`); "+
			"a new console sign-in link: `feedbridge member list`, then `feedbridge member link MEMBER_ID`")
		return nil
	}
	base := "http://" + cfg.HTTP.Listen
	fmt.Fprintf(out, `
Demo workspace %q (%s) created on the business plan.
API key (shown once): %s

Try it:
  curl -s -H 'x-api-key: %s' %s/api/records/verify
  curl -s -H 'x-api-key: %s' -H 'Content-Type: application/json' \
       -d '{"title":"Export to CSV","description":"We need a CSV export of reports","customer_email":"jane@acme.com"}' \
       %s/api/records/feedback

`, ws.Name, ws.ID, key, key, base, key, base)
	if !cfg.Console.Enabled {
		return nil
	}
	_, token, err := svc.AddMember(ctx, ws.ID, DemoMember, core.RoleAdmin)
	if err != nil {
		return fmt.Errorf("demo member: %w", err)
	}
	fmt.Fprintf(out, "Console: open this sign-in link (valid 24 hours) to choose a password for %s:\n  %s\n\n",
		DemoMember, console.SignInLink(cfg.Console.PublicURL, cfg.HTTP.Listen, token))
	return nil
}

// NewLogger builds the process logger from the log section.
func NewLogger(c config.Log, w io.Writer) (*logrus.Entry, error) {
	l := logrus.New()
	l.SetOutput(w)
	lvl, err := logrus.ParseLevel(c.Level)
	if err != nil {
		return nil, fmt.Errorf("log.level: %w", err)
	}
	l.SetLevel(lvl)
	if err := applyLog(l, c); err != nil {
		return nil, err
	}
	return logrus.NewEntry(l), nil
}

// listen opens the HTTP listener; the pool decides which of its connections are served (see connPool).
func listen(cfg config.HTTP, pool *connPool) (net.Listener, error) {
	ln, err := net.Listen("tcp", cfg.Listen)
	if err != nil {
		return nil, fmt.Errorf("listen %s: %w", cfg.Listen, err)
	}
	return &poolListener{Listener: ln, pool: pool}, nil
}

func jsonFormatter() logrus.Formatter {
	return &logrus.JSONFormatter{TimestampFormat: time.RFC3339Nano}
}

func textFormatter() logrus.Formatter { return &logrus.TextFormatter{FullTimestamp: true} }
