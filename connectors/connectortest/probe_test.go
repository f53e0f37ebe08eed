package connectortest

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/feedbridge/feedbridge/connectors"
	"github.com/feedbridge/feedbridge/core"
)

// probeConfig and probeSet are a whole connector kind defined in this test file alone: registering it is
// all it takes for the config package to load, validate, mask and document its entries and for the
// daemon's BuildAll to run it. No other package names it. It uses each of the kit's rules: a key with a
// default tag, a metric registered the ordinary way, a source label of its own, a refused item, a fault
// kept as an error value and the kit's states.
type probeConfig struct {
	Name      string            `koanf:"name" required:"yes" doc:"Entry name."`
	Workspace string            `koanf:"workspace" required:"yes" doc:"Workspace id."`
	Token     connectors.Secret `koanf:"token" doc:"A credential for the outside service."`
	Every     time.Duration     `koanf:"every" default:"1m" doc:"How often to look."`
	Inbox     string            `koanf:"inbox" doc:"A file of items, one JSON object ({\"title\", \"source\"}) a line, read at each look."`
	Source    string            `koanf:"source" default:"Web" doc:"Source label of the items that name none."`
}

// probeMetrics are registered with MustRegister, as a kind may: connectors.Metrics runs this once per
// registry however often the kind is built.
type probeMetrics struct{ items *prometheus.CounterVec }

func newProbeMetrics(reg prometheus.Registerer) (*probeMetrics, error) {
	m := &probeMetrics{items: prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "feedbridge_probe_items_total", Help: "Probe items by outcome.",
	}, []string{"connector", "outcome"})}
	reg.MustRegister(m.items)
	return m, nil
}

type probeEntry struct {
	connectors.Entry
	cfg  probeConfig
	read int // lines of the inbox handled
}

type probeSet struct {
	env     connectors.Env
	m       *probeMetrics
	entries []*probeEntry
}

func buildProbe(raw []map[string]any, env connectors.Env) (connectors.Set, error) {
	env = env.WithDefaults()
	m, err := connectors.Metrics(env, newProbeMetrics)
	if err != nil {
		return nil, err
	}
	es, err := connectors.Entries("probe", raw, env, func(en connectors.Entry, c *probeConfig) (*probeEntry, error) {
		if c.Every <= 0 {
			return nil, fmt.Errorf("every: must be positive")
		}
		return &probeEntry{Entry: en, cfg: *c}, nil
	})
	return &probeSet{env: env, m: m, entries: es}, err
}

func (s *probeSet) Run(ctx context.Context) error {
	var wg sync.WaitGroup
	for _, e := range s.entries {
		wg.Go(func() { s.loop(ctx, e) })
	}
	wg.Wait()
	return nil
}

func (s *probeSet) loop(ctx context.Context, e *probeEntry) {
	defer func() {
		stop, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		e.Report(stop, connectors.StateStopped)
	}()
	e.Log.Info("probe: running")
	e.Report(ctx, connectors.StateRunning)
	for connectors.Sleep(ctx, e.cfg.Every) {
		if err := s.look(ctx, e); err != nil {
			e.Fail(err)
			e.Report(ctx, connectors.StateError)
			continue
		}
		e.Succeeded(s.env.Now())
		e.Report(ctx, connectors.StateRunning)
	}
}

// look stores the inbox's new lines; a line without a title is refused, not retried.
func (s *probeSet) look(ctx context.Context, e *probeEntry) error {
	if _, err := e.cfg.Token.Value(); err != nil {
		return err
	}
	if e.cfg.Inbox == "" {
		return nil
	}
	f, err := os.Open(e.cfg.Inbox)
	if err != nil {
		return fmt.Errorf("probe: open inbox: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for n := 0; sc.Scan(); n++ {
		if n < e.read {
			continue
		}
		var it struct{ Title, Source string }
		if err := json.Unmarshal(sc.Bytes(), &it); err != nil || strings.TrimSpace(it.Title) == "" {
			e.Refused("line " + strconv.Itoa(n+1) + " has no title")
			s.m.items.WithLabelValues(e.Name, "refused").Inc()
			e.read = n + 1
			continue
		}
		_, err := s.env.Service.Submit(ctx, e.Workspace, core.Submission{Type: core.RecordFeedback, Title: it.Title,
			PlainText: true, Source: it.Source, DefaultSource: e.cfg.Source, DedupKey: "probe:" + e.Name + ":" + strconv.Itoa(n)})
		if err != nil {
			return fmt.Errorf("probe: store line %d: %w", n+1, err)
		}
		s.m.items.WithLabelValues(e.Name, "stored").Inc()
		e.read = n + 1
	}
	return sc.Err()
}

func init() {
	connectors.Register(connectors.Kind{Name: "probe", Summary: "A kind that lives in a test file.",
		Config: func() any { return &probeConfig{} }, Build: buildProbe})
	// A kind that breaks the metrics rule: it registers on the daemon's registry at every build.
	connectors.Register(connectors.Kind{Name: "probe_bad_metrics", Summary: "Registers its metric at every build.",
		Config: func() any { return &probeConfig{} },
		Build: func(raw []map[string]any, env connectors.Env) (connectors.Set, error) {
			if env.Metrics != nil {
				env.Metrics.MustRegister(prometheus.NewCounter(prometheus.CounterOpts{Name: "feedbridge_probe_bad_total", Help: "x"}))
			}
			return buildProbe(raw, env)
		}})
}

// TestKindDefinedInATestFile runs the whole suite on the probe kind, and the log line check needs the
// logger the daemon gives (BuildAll adds connector_kind).
func TestKindDefinedInATestFile(t *testing.T) {
	Run(t, Case{Kind: "probe", Entry: func(t testing.TB, ws core.ID, dir string) map[string]any {
		return map[string]any{"name": "probe-1", "workspace": string(ws), "token": "t0ken", "every": "30s"}
	}})
}
