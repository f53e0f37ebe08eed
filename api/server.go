package api

import (
	"context"
	"io"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/sirupsen/logrus"

	"github.com/feedbridge/feedbridge/core"
)

// MaxBodyBytes is the largest request body the API reads.
const MaxBodyBytes = 1 << 20

// DefaultAuthCacheTTL is how long a successful key lookup is reused. The contract lets a revoked key or a
// suspended workspace take up to 5 seconds to be refused; caching well inside that spares the store one
// query per request.
const DefaultAuthCacheTTL = 2 * time.Second

// RateLimit is the per-key token bucket: PerSecond tokens refill each second up to Burst.
type RateLimit struct {
	PerSecond float64
	Burst     int
}

// Options configure a Server. Zero values are usable defaults.
type Options struct {
	Log       *logrus.Entry
	RateLimit RateLimit // zero: 20/s, burst 40
	// Metrics is shared with core.Options.Observer so records created by connectors are counted too; nil
	// builds one on Registerer.
	Metrics    *Metrics
	Registerer prometheus.Registerer // used only when Metrics is nil; nil: a private registry
	// Extra mounts routes outside /api (the connectors' endpoints, e.g. Slack).
	Extra func(mux *http.ServeMux)
	// Ready adds readiness checks beyond the store ping (migrations current, connectors started).
	Ready func(ctx context.Context) error
	// AuthCacheTTL bounds how long a successful key lookup is reused; 0 means DefaultAuthCacheTTL and a
	// negative value disables the cache.
	AuthCacheTTL time.Duration
	// RequestTimeout bounds the work of one request (0: DefaultRequestTimeout; negative: none).
	RequestTimeout time.Duration
	Now            func() time.Time
	// ConnectorKinds are the registered connector kinds, listed by /api/openapi.json; nil keeps the
	// embedded document's list.
	ConnectorKinds []string
	// Configured reports whether a connector entry (kind and name) of a workspace is in the running
	// configuration; GET /api/connectors lists only those, since the store keeps the last state of
	// entries that a reload removed. nil lists every stored state.
	Configured func(ws core.ID, kind, name string) bool
	// Sources are the source labels records may carry (the canonical set plus sources.add), listed by
	// /api/openapi.json; nil keeps the embedded document's list.
	Sources []string
	// Subscribers reports the event subscribers of a workspace for GET /api/events/subscribers; nil lists none.
	Subscribers func(ctx context.Context, ws core.ID) ([]core.SubscriberStatus, error)
}

// Server is the HTTP API over one core.Service.
type Server struct {
	svc     *core.Service
	log     *logrus.Entry
	metrics *Metrics
	limiter *limiter
	// authFailures counts failed authentications per client address.
	authFailures *limiter
	auth         *authCache
	ready        func(ctx context.Context) error
	openAPI      []byte // served at /api/openapi.json
	now          func() time.Time
	mux          *http.ServeMux
	// notAllowed holds the patterns registered only to answer 405; probing for Allow skips them.
	notAllowed     map[string]bool
	handler        http.Handler
	requestTimeout time.Duration
	configured     func(ws core.ID, kind, name string) bool
	subscribers    func(ctx context.Context, ws core.ID) ([]core.SubscriberStatus, error)
}

// New builds the server and its routes.
func New(svc *core.Service, opts Options) *Server {
	s := &Server{svc: svc, log: opts.Log, metrics: opts.Metrics, ready: opts.Ready, now: opts.Now, configured: opts.Configured,
		subscribers: opts.Subscribers}
	if s.log == nil {
		l := logrus.New()
		l.SetOutput(io.Discard)
		s.log = logrus.NewEntry(l)
	}
	if s.now == nil {
		s.now = time.Now
	}
	if s.metrics == nil {
		m, err := NewMetrics(opts.Registerer)
		if err != nil {
			s.log.WithError(err).Error("api: metrics registration failed; serving private metrics")
			m, _ = NewMetrics(nil)
		}
		s.metrics = m
	}
	rl := opts.RateLimit
	if rl.PerSecond <= 0 {
		rl.PerSecond = 20
	}
	if rl.Burst <= 0 {
		rl.Burst = 40
	}
	s.limiter = newLimiter(rl, s.now)
	s.authFailures = newLimiter(RateLimit{PerSecond: failedAuthPerSecond, Burst: failedAuthBurst}, s.now)
	doc, err := openAPIFor(opts.ConnectorKinds, opts.Sources)
	if err != nil {
		s.log.WithError(err).Error("api: connector kinds not listed in the OpenAPI document")
		doc = OpenAPI()
	}
	s.openAPI = doc
	ttl := opts.AuthCacheTTL
	if ttl == 0 {
		ttl = DefaultAuthCacheTTL
	}
	s.auth = newAuthCache(svc, ttl, s.now)
	s.mux = http.NewServeMux()
	s.notAllowed = map[string]bool{}
	s.routes()
	if opts.Extra != nil {
		opts.Extra(s.mux)
	}
	s.requestTimeout = opts.RequestTimeout
	if s.requestTimeout == 0 {
		s.requestTimeout = DefaultRequestTimeout
	}
	s.handler = s.withRequestID(s.withLogging(s.withRecovery(s.mux)))
	return s
}

// SetRateLimit changes the per-key rate limit of a running server; zero fields keep their current value.
func (s *Server) SetRateLimit(rl RateLimit) {
	s.limiter.mu.Lock()
	if rl.PerSecond <= 0 {
		rl.PerSecond = s.limiter.rate
	}
	if rl.Burst <= 0 {
		rl.Burst = int(s.limiter.burst)
	}
	s.limiter.mu.Unlock()
	s.limiter.set(rl)
}

// Handler is the whole HTTP surface: /api, the operational endpoints and the Extra routes.
func (s *Server) Handler() http.Handler { return s.handler }
