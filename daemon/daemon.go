// Package daemon assembles `feedbridge serve`: the store, the records service, the HTTP API, the connectors
// and the insight workers, and stops them in order when the context ends.
package daemon

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
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
	"github.com/feedbridge/feedbridge/connectors/all"
	"github.com/feedbridge/feedbridge/connectors/csvimport"
	"github.com/feedbridge/feedbridge/core"
	"github.com/feedbridge/feedbridge/store"
)

// Options are the flags of `serve` that are not configuration.
type Options struct {
	Demo    bool
	Out     io.Writer // where --demo prints the key
	Version string
	// Listening, when set, receives the bound address once the server accepts connections (tests).
	Listening func(addr string)
}

// importSweepEvery is how often the daemon closes import runs whose process stopped (their lease has gone
// 30 s without renewal), in every workspace.
const importSweepEvery = time.Minute

// Run serves until ctx ends, then shuts down: HTTP stops accepting and finishes in-flight requests, then
// connectors and workers stop at their next safe boundary, then the store closes.
func Run(ctx context.Context, cfg *config.Config, opts Options) error {
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
	})

	if opts.Demo {
		if err := seedDemo(ctx, svc, cfg, opts.Out); err != nil {
			return err
		}
	}

	env := connectors.Env{Service: svc, Log: log.WithField("component", "connectors"), Metrics: reg, Leases: st, Holder: holderID(),
		Lease: leaseTiming(cfg.Store.URL), Now: time.Now}
	sets, err := all.Build(cfg.Connectors.ByKind(), env)
	if err != nil {
		return fmt.Errorf("connectors: %w", err)
	}
	srv := api.New(svc, api.Options{
		Log:       log.WithField("component", "http"),
		RateLimit: api.RateLimit{PerSecond: cfg.HTTP.RateLimit.PerSecond, Burst: cfg.HTTP.RateLimit.Burst},
		Metrics:   metrics,
		Extra: func(mux *http.ServeMux) {
			for _, s := range sets {
				if r, ok := s.(connectors.Router); ok {
					r.Routes(mux)
				}
			}
		},
	})
	httpSrv := &http.Server{
		Handler:           srv.Handler(),
		ReadHeaderTimeout: cfg.HTTP.ReadHeaderTimeout,
		ReadTimeout:       cfg.HTTP.ReadTimeout,
		WriteTimeout:      cfg.HTTP.WriteTimeout,
		IdleTimeout:       2 * time.Minute,
		ErrorLog:          nil,
	}
	ln, err := net.Listen("tcp", cfg.HTTP.Listen)
	if err != nil {
		return fmt.Errorf("listen %s: %w", cfg.HTTP.Listen, err)
	}
	log.WithFields(logrus.Fields{"addr": ln.Addr().String(), "store": storeKind(cfg.Store.URL)}).Info("feedbridge serving")
	if opts.Listening != nil {
		opts.Listening(ln.Addr().String())
	}

	bgCtx, stopBackground := context.WithCancel(context.WithoutCancel(ctx))
	var wg sync.WaitGroup
	for _, s := range sets {
		wg.Go(func() {
			if err := s.Run(bgCtx); err != nil && bgCtx.Err() == nil {
				log.WithError(err).Error("connector set stopped")
			}
		})
	}
	wg.Go(func() {
		csvimport.SweepAbandoned(bgCtx, svc, importSweepEvery, log.WithField("component", "connectors"))
	})
	if workers != nil {
		wg.Go(func() {
			if err := workers.Run(bgCtx); err != nil {
				log.WithError(err).Error("insight workers stopped")
			}
		})
	}

	serveErr := make(chan error, 1)
	go func() { serveErr <- httpSrv.Serve(ln) }()
	select {
	case <-ctx.Done():
	case err := <-serveErr:
		stopBackground()
		wg.Wait()
		return fmt.Errorf("http server: %w", err)
	}

	log.Info("shutting down: finishing in-flight requests")
	shutCtx, cancel := context.WithTimeout(context.Background(), cfg.HTTP.ShutdownTimeout)
	defer cancel()
	if err := httpSrv.Shutdown(shutCtx); err != nil {
		log.WithError(err).Warn("http shutdown did not finish in time")
	}
	stopBackground()
	wg.Wait()
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

// seedDemo creates the demo workspace on an empty store and prints its key once.
func seedDemo(ctx context.Context, svc *core.Service, cfg *config.Config, out io.Writer) error {
	ws, key, created, err := svc.SeedDemo(ctx)
	if err != nil {
		return fmt.Errorf("demo: %w", err)
	}
	if !created {
		fmt.Fprintln(out, "demo: the store already has a workspace; nothing seeded (list keys with `feedbridge key list`)")
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
	switch c.Format {
	case "json":
		l.SetFormatter(&logrus.JSONFormatter{TimestampFormat: time.RFC3339Nano})
	case "", "text":
		l.SetFormatter(&logrus.TextFormatter{FullTimestamp: true})
	default:
		return nil, errors.New("log.format must be text or json")
	}
	return logrus.NewEntry(l), nil
}
