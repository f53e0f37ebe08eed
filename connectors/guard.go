package connectors

import (
	"errors"
	"io"
	"math"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/sirupsen/logrus"
)

// Guard protects the endpoints that take no API key and authenticate a caller by a signature over the body
// (webhooks, Slack). Such a request costs a body read and an HMAC before it is known to be anyone's, so:
//   - failures are limited per client address: once an address has spent its budget, its requests get 429
//     without a body read or HMAC until the budget refills;
//   - bodies read before authentication share a byte budget, and one address may hold at most a quarter of
//     it, so held uploads cannot grow memory without bound; past it the request gets 503 at once;
//   - refusals are logged as a sample: the first at once, then at most one line per key and interval, with
//     the count of those not logged.
//
// The address is the connection's peer: X-Forwarded-For is whatever the client claims. Behind a proxy every
// caller shares the proxy's address, and one caller's failures spend everyone's budget.
type Guard struct {
	Limits GuardLimits // read at each request; tests shrink them
	now    func() time.Time

	mu        sync.Mutex
	failures  map[string]*failureBucket
	lastSweep time.Time
	inFlight  int64
	byAddr    map[string]int64
	sampled   map[string]*sample
}

// GuardLimits are a Guard's budgets.
type GuardLimits struct {
	// FailureBurst failures per address are allowed at once, refilled at FailurePerSecond.
	FailureBurst     float64
	FailurePerSecond float64
	// BodyBudget is the most bytes of unauthenticated bodies being read at once.
	BodyBudget int64
	// LogEvery is the interval of the sampled refusal log.
	LogEvery time.Duration
}

// DefaultGuardLimits are the API's failed-key limit (so a failing sender is treated alike on every surface),
// 32 MiB of bodies (32 deliveries at the webhooks' default 1 MiB limit), one log line a minute.
func DefaultGuardLimits() GuardLimits {
	return GuardLimits{FailureBurst: 20, FailurePerSecond: 1, BodyBudget: 32 << 20, LogEvery: time.Minute}
}

// ErrBusy is a body read refused because the budget of unauthenticated reads is spent: answer 503.
var ErrBusy = errors.New("too many unauthenticated uploads in progress")

type failureBucket struct {
	tokens float64
	last   time.Time
}

type sample struct {
	last       time.Time
	suppressed int
}

// NewGuard makes a Guard; now may be nil.
func NewGuard(now func() time.Time) *Guard {
	if now == nil {
		now = time.Now
	}
	return &Guard{Limits: DefaultGuardLimits(), now: now, failures: map[string]*failureBucket{}, byAddr: map[string]int64{}, sampled: map[string]*sample{}}
}

// ClientAddr is r's peer address without the port.
func ClientAddr(r *http.Request) string {
	if host, _, err := net.SplitHostPort(r.RemoteAddr); err == nil {
		return host
	}
	return r.RemoteAddr
}

// Limited reports whether addr has spent its failure budget, and how long until it may fail once more.
func (g *Guard) Limited(addr string) (bool, time.Duration) {
	g.mu.Lock()
	defer g.mu.Unlock()
	b := g.bucket(addr, false)
	if b == nil || b.tokens >= 1 {
		return false, 0
	}
	return true, time.Duration((1 - b.tokens) / g.Limits.FailurePerSecond * float64(time.Second))
}

// Failed spends one failure of addr's budget.
func (g *Guard) Failed(addr string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if b := g.bucket(addr, true); b.tokens > 0 {
		b.tokens = math.Max(0, b.tokens-1)
	}
}

// bucket refills addr's bucket to now; without create a missing one (a full budget) stays missing. The
// caller holds g.mu.
func (g *Guard) bucket(addr string, create bool) *failureBucket {
	now := g.now()
	if now.Sub(g.lastSweep) >= time.Minute {
		g.lastSweep = now
		full := time.Duration(g.Limits.FailureBurst / g.Limits.FailurePerSecond * float64(time.Second))
		for k, b := range g.failures {
			if now.Sub(b.last) >= full {
				delete(g.failures, k)
			}
		}
	}
	b := g.failures[addr]
	if b == nil {
		if !create {
			return nil
		}
		b = &failureBucket{tokens: g.Limits.FailureBurst, last: now}
		g.failures[addr] = b
	}
	if el := now.Sub(b.last).Seconds(); el > 0 {
		b.tokens = math.Min(g.Limits.FailureBurst, b.tokens+el*g.Limits.FailurePerSecond)
		b.last = now
	}
	return b
}

// ReadBody reads r's body, at most limit bytes (else *http.MaxBytesError), holding its declared length
// (limit when undeclared) of the body budget while it reads. ErrBusy: the budget, or the address's share of
// it, is spent.
func (g *Guard) ReadBody(w http.ResponseWriter, r *http.Request, limit int64) ([]byte, error) {
	n := limit
	if r.ContentLength >= 0 && r.ContentLength < limit {
		n = r.ContentLength
	}
	addr := ClientAddr(r)
	g.mu.Lock()
	share := g.Limits.BodyBudget / 4
	// A body larger than the budget (or the share) is still read when nothing else is.
	fits := g.inFlight+n <= g.Limits.BodyBudget || g.inFlight == 0
	fitsShare := g.byAddr[addr]+n <= share || g.byAddr[addr] == 0
	if !fits || !fitsShare {
		g.mu.Unlock()
		return nil, ErrBusy
	}
	g.inFlight += n
	g.byAddr[addr] += n
	g.mu.Unlock()
	defer func() {
		g.mu.Lock()
		g.inFlight -= n
		if g.byAddr[addr] -= n; g.byAddr[addr] <= 0 {
			delete(g.byAddr, addr)
		}
		g.mu.Unlock()
	}()
	return io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
}

// HeldBytes is the part of the body budget held by reads in progress.
func (g *Guard) HeldBytes() int64 {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.inFlight
}

// Busy answers ErrBusy: 503 with Retry-After, in the error shape of the endpoints outside /api.
func Busy(w http.ResponseWriter) {
	Hangup(w)
	w.Header().Set("Retry-After", "1")
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(http.StatusServiceUnavailable)
	_, _ = io.WriteString(w, `{"success":false,"error":"busy","message":"Too many uploads are in progress; retry in a second."}`+"\n")
}

// TooManyFailures answers a request from an address that has spent its failure budget: 429 with
// Retry-After.
func TooManyFailures(w http.ResponseWriter, retry time.Duration) {
	secs := int(math.Ceil(retry.Seconds()))
	if secs < 1 {
		secs = 1
	}
	Hangup(w)
	w.Header().Set("Retry-After", strconv.Itoa(secs))
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(http.StatusTooManyRequests)
	_, _ = io.WriteString(w, `{"success":false,"error":"too many failed authentications","message":"This address sent too many requests that failed authentication; retry after `+
		strconv.Itoa(secs)+` seconds."}`+"\n")
}

// Hangup makes the answer close its connection. Without it, the server reads what is left of a body the
// handler did not read (up to 256 KiB) before it answers, to keep the connection alive: a caller holding
// its upload would hold the answer, and the connection, until the read timeout.
func Hangup(w http.ResponseWriter) { w.Header().Set("Connection", "close") }

// LogRefusal logs a refused request under key (an entry, an endpoint) as a sample: the first at once,
// then at most one line per Limits.LogEvery, which carries how many were not logged since the last line.
// fields must hold no secret and no signature.
func (g *Guard) LogRefusal(log *logrus.Entry, key string, fields logrus.Fields, reason error) {
	now := g.now()
	g.mu.Lock()
	s := g.sampled[key]
	if s == nil {
		s = &sample{}
		g.sampled[key] = s
	} else if now.Sub(s.last) < g.Limits.LogEvery {
		s.suppressed++
		g.mu.Unlock()
		return
	}
	suppressed := s.suppressed
	s.last, s.suppressed = now, 0
	g.mu.Unlock()
	e := log.WithFields(fields)
	if suppressed > 0 {
		e = e.WithField("refused_unlogged", suppressed)
	}
	e.WithError(reason).Warn("request refused: authentication failed")
}
