package slack

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/feedbridge/feedbridge/connectors"
	"github.com/feedbridge/feedbridge/internal/recovery"
)

// options are the seams the tests turn: where Slack's Web API lives and the timings of the slow path.
type options struct {
	apiURL       string          // Slack Web API base with a trailing slash, over every entry's api_url; "" for none
	httpClient   *http.Client    // Web API and response_url calls
	slowAfter    time.Duration   // store slower than this: answer at once, post the outcome later
	retryDelays  []time.Duration // pauses between response_url attempts
	responseBase string          // the only place response_url posts may go: Slack's hooks
	storeTimeout time.Duration   // how long one save may take in the background
	drainTimeout time.Duration   // how long Run waits for background deliveries at shutdown
}

func defaultOptions() options {
	return options{
		httpClient:   connectors.HTTPClient(connectors.HTTPOptions{Timeout: 10 * time.Second}),
		responseBase: "https://hooks.slack.com/",
		slowAfter:    2 * time.Second,
		retryDelays:  []time.Duration{time.Second, 3 * time.Second, 9 * time.Second},
		storeTimeout: 30 * time.Second,
		drainTimeout: 20 * time.Second,
	}
}

// app is one configured entry, ready to serve.
type app struct {
	connectors.Entry
	cfg Config // validated, its commands normalized
	bot *bot   // nil without a bot_token: no shortcut author lookup, no modal
}

// Set serves every configured Slack app on the same two endpoints.
type Set struct {
	svc     connectors.Service
	log     *logrus.Entry
	apps    []*app
	cfgs    []Config
	secrets []connectors.Secret // secrets[i] signs for apps[i]; read for each request
	opts    options
	status  *connectors.Board
	metrics *metrics
	guard   *connectors.Guard
	bg      sync.WaitGroup // saves and deliveries that outlive their request
}

var (
	_ connectors.Set     = (*Set)(nil)
	_ connectors.Router  = (*Set)(nil)
	_ connectors.Builder = Build
)

// Kind is the key of this connector under `connectors:`.
const Kind = "slack"

// Build makes the Slack connector from the connectors.slack entries. It validates every entry without any
// network call and reports all problems at once; env.Service may be nil when only validating (config check).
func Build(entries []map[string]any, env connectors.Env) (connectors.Set, error) {
	return build(entries, env, defaultOptions())
}

func build(entries []map[string]any, env connectors.Env, opts options) (*Set, error) {
	env = env.WithDefaults()
	apps, err := connectors.Entries(Kind, entries, env, func(en connectors.Entry, c *Config) (*app, error) {
		if err := c.validate(); err != nil {
			return nil, err
		}
		return &app{Entry: en, cfg: *c, bot: newBot(c.BotToken, c.APIURL, opts)}, nil
	})
	cfgs := make([]Config, len(apps))
	for i, a := range apps {
		cfgs[i] = a.cfg
	}
	if err := errors.Join(err, checkRoutes(cfgs)); err != nil {
		return nil, err
	}
	m, err := connectors.Metrics(env, newMetrics)
	if err != nil {
		return nil, err
	}
	board, err := connectors.NewBoard(env, Kind)
	if err != nil {
		return nil, err
	}
	s := &Set{svc: env.Service, log: env.Log.WithField("connector_kind", Kind), apps: apps, cfgs: cfgs, opts: opts, metrics: m,
		status: board, guard: connectors.NewGuard(env.Now)}
	for _, a := range apps {
		s.status.Add(a.Name, a.Workspace)
		s.secrets = append(s.secrets, a.cfg.SigningSecret)
	}
	return s, nil
}

// Routes mounts Slack's request URLs; they sit outside /api and take no API key, the signature is the
// authentication.
func (s *Set) Routes(mux *http.ServeMux) {
	mux.HandleFunc("POST /slack/commands", s.handleCommand)
	mux.HandleFunc("POST /slack/interactions", s.handleInteraction)
}

// Run reports the entries' state until ctx ends, then waits (bounded) for outcomes still being delivered.
func (s *Set) Run(ctx context.Context) error {
	s.flush(ctx, connectors.StateRunning)
	t := time.NewTicker(statusEvery)
	defer t.Stop()
	for {
		select {
		case <-t.C:
			s.flush(ctx, connectors.StateRunning)
		case <-ctx.Done():
			s.drain()
			final, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
			defer cancel()
			s.flush(final, connectors.StateStopped)
			return nil
		}
	}
}

// flush writes every entry's state; a store that is down only costs a log line.
func (s *Set) flush(ctx context.Context, state connectors.State) {
	if err := s.status.Flush(ctx, state, true); err != nil && ctx.Err() == nil {
		s.log.WithError(err).Warn("slack: report connector status")
	}
}

// drain waits for background saves and deliveries so a shutdown does not drop an answer mid-flight.
func (s *Set) drain() {
	done := make(chan struct{})
	go func() { s.bg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(s.opts.drainTimeout):
		s.log.Warn("slack: shutdown with deliveries still pending")
	}
}

// entry picks the app among those whose secret signed the request.
func (s *Set) entry(signed []int, teamID string) (*app, bool) {
	i, ok := pick(s.cfgs, signed, teamID)
	if !ok {
		return nil, false
	}
	return s.apps[i], true
}

// background runs fn outside the request, counted so that Run can wait for it. A panic in fn is logged
// with an error_id and ends only fn: the request that started it came from outside.
func (s *Set) background(fn func()) {
	s.bg.Add(1)
	go func() {
		defer s.bg.Done()
		defer recovery.Guard(s.log, "slack: background work", nil)
		fn()
	}()
}
