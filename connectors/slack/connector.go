package slack

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/sirupsen/logrus"
	slackgo "github.com/slack-go/slack"

	"github.com/feedbridge/feedbridge/connectors"
	"github.com/feedbridge/feedbridge/core"
)

// options are the seams the tests turn: where Slack's Web API lives and the timings of the slow path.
type options struct {
	apiURL       string          // Slack Web API base with a trailing slash; "" for slack.com
	httpClient   *http.Client    // Web API and response_url calls
	slowAfter    time.Duration   // store slower than this: answer at once, post the outcome later
	retryDelays  []time.Duration // pauses between response_url attempts
	storeTimeout time.Duration   // how long one save may take in the background
	drainTimeout time.Duration   // how long Run waits for background deliveries at shutdown
}

func defaultOptions() options {
	return options{
		httpClient:   &http.Client{Timeout: 10 * time.Second},
		slowAfter:    2 * time.Second,
		retryDelays:  []time.Duration{time.Second, 3 * time.Second, 9 * time.Second},
		storeTimeout: 30 * time.Second,
		drainTimeout: 20 * time.Second,
	}
}

// app is one configured entry, ready to serve.
type app struct {
	Config
	workspace core.ID
	api       *slackgo.Client // nil without a bot_token: no shortcut author lookup, no modal
	log       *logrus.Entry
}

// Set serves every configured Slack app on the same two endpoints.
type Set struct {
	svc     *core.Service
	log     *logrus.Entry
	apps    []*app
	cfgs    []Config
	secrets []connectors.Secret // secrets[i] signs for apps[i]; read for each request
	opts    options
	status  *connectors.Board
	metrics *metrics
	bg      sync.WaitGroup // saves and deliveries that outlive their request
}

var (
	_ connectors.Set     = (*Set)(nil)
	_ connectors.Router  = (*Set)(nil)
	_ connectors.Builder = Build
)

// Build makes the Slack connector from the connectors.slack entries. It validates every entry without any
// network call and reports all problems at once; env.Service may be nil when only validating (config check).
func Build(entries []map[string]any, env connectors.Env) (connectors.Set, error) {
	return build(entries, env, defaultOptions())
}

func build(entries []map[string]any, env connectors.Env, opts options) (*Set, error) {
	cfgs := make([]Config, len(entries))
	var errs []error
	decoded := true
	for i, e := range entries {
		if err := connectors.Decode(e, &cfgs[i]); err != nil {
			errs = append(errs, fmt.Errorf("slack %q: %w", connectors.EntryName(e, i), err))
			// An unknown key leaves the rest of the entry decoded: its other problems are listed too.
			decoded = decoded && strings.HasPrefix(err.Error(), "unknown keys")
		}
	}
	if decoded {
		errs = append(errs, validateAll(cfgs))
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	log := env.Log
	if log == nil {
		log = logrus.NewEntry(logrus.New())
	}
	// One log vocabulary for every kind: connector_kind (set by the registry), connector (the entry's
	// name) and workspace.
	m, err := newMetrics(env.Metrics)
	if err != nil {
		return nil, err
	}
	s := &Set{svc: env.Service, log: log, cfgs: cfgs, opts: opts, metrics: m}
	for _, c := range cfgs {
		a := &app{Config: c, workspace: core.ID(c.Workspace), log: log.WithFields(logrus.Fields{"connector": c.Name, "workspace": c.Workspace})}
		if c.BotToken != "" {
			apiOpts := []slackgo.Option{slackgo.OptionHTTPClient(opts.httpClient)}
			if opts.apiURL != "" {
				apiOpts = append(apiOpts, slackgo.OptionAPIURL(opts.apiURL))
			}
			// The bot token is read when the entry is built; a rotated token needs a restart (or a reload).
			token, err := c.BotToken.Value()
			if err != nil {
				return nil, fmt.Errorf("slack %q: bot_token: %w", c.Name, err)
			}
			a.api = slackgo.New(token, apiOpts...)
		}
		s.apps = append(s.apps, a)
		s.secrets = append(s.secrets, c.SigningSecret)
	}
	now := env.Now
	if now == nil {
		now = time.Now
	}
	s.status = connectors.NewBoard(s.svc, "slack", now)
	for _, a := range s.apps {
		s.status.Add(a.Name, a.workspace)
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
	s.flush(ctx, "running")
	t := time.NewTicker(statusEvery)
	defer t.Stop()
	for {
		select {
		case <-t.C:
			s.flush(ctx, "running")
		case <-ctx.Done():
			s.drain()
			final, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
			defer cancel()
			s.flush(final, "stopped")
			return nil
		}
	}
}

// flush writes every entry's state; a store that is down only costs a log line.
func (s *Set) flush(ctx context.Context, state string) {
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

// background runs fn outside the request, counted so that Run can wait for it.
func (s *Set) background(fn func()) {
	s.bg.Add(1)
	go func() {
		defer s.bg.Done()
		fn()
	}()
}
