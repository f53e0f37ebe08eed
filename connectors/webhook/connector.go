package webhook

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/sirupsen/logrus"

	"github.com/feedbridge/feedbridge/connectors"
)

// Kind is the key of this connector under `connectors:`.
const Kind = "webhook"

// statusEvery is how often changed entry states are written for GET /api/connectors.
const statusEvery = 10 * time.Second

func init() {
	connectors.Register(connectors.Kind{
		Name:    Kind,
		Summary: "Inbound webhooks: each entry answers POST /hooks/<name>, checks the sender's signature or token, and maps the JSON payload to records.",
		Config:  func() any { return &Config{} },
		Build:   Build,
	})
}

var (
	_ connectors.Set     = (*Set)(nil)
	_ connectors.Router  = (*Set)(nil)
	_ connectors.Updater = (*Set)(nil)
)

// Set serves every configured webhook entry on POST /hooks/{name}. Its entries change in place on a
// reload (Update): requests read the current table, and each entry's queue worker starts and stops alone.
type Set struct {
	svc      connectors.Service
	log      *logrus.Entry
	now      func() time.Time
	table    atomic.Pointer[entryTable]
	board    *connectors.Board
	requests *prometheus.CounterVec
	queue    *queue
	guard    *connectors.Guard

	mu      sync.Mutex      // Run's start and stop, and Update
	runCtx  context.Context // while Run runs: the workers' parent
	workers map[string]*worker
	wg      sync.WaitGroup
}

// entryTable is the entries in force, never changed once stored: Update stores a new one.
type entryTable struct {
	byName map[string]*entry
	order  []*entry
}

// worker is one entry's running queue worker.
type worker struct {
	cancel context.CancelFunc
	done   chan struct{}
}

// entry is one validated entry with its logger (connectors.Entry's, which names the kind, the entry and
// its workspace), and the wake-up of its queue worker.
type entry struct {
	*entrySpec
	log  *logrus.Entry
	wake chan struct{}
}

// queueKey names the entry's deliveries in the service's delivery queue, which every kind shares.
func (en *entry) queueKey() string { return Kind + ":" + en.Name }

// Build is the connectors.Builder of `connectors.webhook`. It validates every entry without any network
// call; env.Service is nil when the config is only checked.
func Build(raw []map[string]any, env connectors.Env) (connectors.Set, error) {
	env = env.WithDefaults()
	m, err := connectors.Metrics(env, newMetrics)
	if err != nil {
		return nil, fmt.Errorf("metrics: %w", err)
	}
	order, err := connectors.Entries(Kind, raw, env, func(en connectors.Entry, c *Config) (*entry, error) {
		spec, err := parseConfig(*c, en.Given)
		if err != nil {
			return nil, err
		}
		spec.ws = en.Workspace
		return &entry{entrySpec: spec, log: en.Log, wake: make(chan struct{}, 1)}, nil
	})
	if err != nil {
		return nil, err
	}
	board, err := connectors.NewBoard(env, Kind)
	if err != nil {
		return nil, err
	}
	s := &Set{svc: env.Service, log: env.Log, now: env.Now, board: board,
		requests: m.requests, workers: map[string]*worker{}, guard: connectors.NewGuard(env.Now)}
	t := &entryTable{byName: map[string]*entry{}, order: order}
	for _, en := range order {
		t.byName[en.Name] = en
		s.board.Add(en.Name, en.ws)
	}
	s.table.Store(t)
	s.queue = newQueue(m.queued)
	return s, nil
}

// Routes mounts the one endpoint all entries share.
func (s *Set) Routes(mux *http.ServeMux) {
	mux.HandleFunc("POST /hooks/{name}", s.serve)
}

// Run reports the entries' states and writes queued deliveries until ctx ends. Deliveries are served by
// the HTTP server, which drains them on shutdown; a queued delivery being written may finish first.
func (s *Set) Run(ctx context.Context) error {
	s.mu.Lock()
	s.runCtx = ctx
	for _, en := range s.table.Load().order {
		s.startWorker(en)
	}
	s.mu.Unlock()
	s.flush(ctx, connectors.StateRunning, true)
	t := time.NewTicker(statusEvery)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			s.mu.Lock()
			s.runCtx = nil // an Update from now on starts no worker
			s.mu.Unlock()
			s.wg.Wait()
			stop, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
			s.flush(stop, connectors.StateStopped, true)
			cancel()
			return nil
		case <-t.C:
			s.flush(ctx, connectors.StateRunning, false)
		}
	}
}

func (s *Set) flush(ctx context.Context, state connectors.State, all bool) {
	if err := s.board.Flush(ctx, state, all); err != nil {
		s.log.WithError(err).Warn("webhook: report connector status")
	}
}

// decodeEntry decodes one raw entry as the registry's Build does and says which keys it gives.
func decodeEntry(raw map[string]any, c *Config) (given func(key string) bool, err error) {
	return connectors.Given(raw), connectors.Decode(raw, c)
}
