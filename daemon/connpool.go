package daemon

import (
	"context"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// healthReserve is how many connections past the pool are served for health checks only. An orchestrator
// probes with one connection at a time, so a few are plenty; the reserve's connections close after one
// answer, so a flood cannot settle in it.
const healthReserve = 32

// Connection states as the pool sees them. A connection is reclaimable unless a request is in a handler:
// one that has sent nothing yet, or a keep-alive waiting for its next request, costs its client at most a
// reconnect when it is closed.
const (
	connWaiting int32 = iota // accepted or idle: no request being served
	connBusy                 // a request is being served, or the connection was hijacked
)

// connPool decides which connections the HTTP server serves. A plain cap that makes further connections wait
// in the kernel's queue lets one client fill it with idle keep-alives and starve everyone, the health
// checks included. Here a new connection that finds the pool (or its client address's share) full takes the
// place of the longest-waiting connection instead; only when every connection is busy does it go to the
// health reserve, which answers the health endpoints and refuses the rest with 503, and past the reserve
// the connection is closed at once.
type connPool struct {
	max, perClient, reserve int
	// limitLoopback applies perClient to loopback peers too (tests); the daemon exempts them, because on
	// loopback the peer is a local reverse proxy carrying every client's traffic, or a local process.
	limitLoopback bool
	epoch         time.Time
	shed          *prometheus.CounterVec

	mu     sync.Mutex
	main   map[*poolConn]struct{}
	spare  map[*poolConn]struct{} // the health reserve
	byAddr map[string]map[*poolConn]struct{}
}

// poolConn is an admitted connection; the server's ConnState hook keeps its state.
type poolConn struct {
	net.Conn
	pool     *connPool
	addr     string
	spare    bool
	state    atomic.Int32
	since    atomic.Int64 // when it last started waiting, in nanoseconds since the pool's epoch
	released atomic.Bool
}

func newConnPool(max, perClient int, reg prometheus.Registerer) (*connPool, error) {
	p := &connPool{max: max, perClient: perClient, reserve: healthReserve, epoch: time.Now(),
		main: map[*poolConn]struct{}{}, spare: map[*poolConn]struct{}{}, byAddr: map[string]map[*poolConn]struct{}{}}
	p.shed = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "feedbridge_http_connections_shed_total",
		Help: "Connections the HTTP server closed early or served on the health reserve, by reason.",
	}, []string{"reason"})
	if reg != nil {
		if err := reg.Register(p.shed); err != nil {
			return nil, err
		}
	}
	return p, nil
}

func (p *connPool) clock() int64 { return int64(time.Since(p.epoch)) }

// admit decides c's place: in the pool, in the reserve, or nowhere (nil: the caller closes it).
func (p *connPool) admit(c net.Conn) *poolConn {
	pc := &poolConn{Conn: c, pool: p, addr: peerHost(c.RemoteAddr())}
	pc.since.Store(p.clock())
	limited := p.perClient > 0 && (p.limitLoopback || !isLoopback(pc.addr))
	var victim *poolConn
	var reason string
	p.mu.Lock()
	addrFull := limited && len(p.byAddr[pc.addr]) >= p.perClient
	switch {
	case addrFull:
		victim, reason = oldestWaiting(p.byAddr[pc.addr]), "client_limit"
	case len(p.main) >= p.max:
		victim, reason = oldestWaiting(p.main), "pool_full"
	}
	switch {
	case victim != nil || (!addrFull && len(p.main) < p.max):
		p.forget(victim)
		p.main[pc] = struct{}{}
		set := p.byAddr[pc.addr]
		if set == nil {
			set = map[*poolConn]struct{}{}
			p.byAddr[pc.addr] = set
		}
		set[pc] = struct{}{}
	case len(p.spare) < p.reserve:
		pc.spare = true
		p.spare[pc] = struct{}{}
	default:
		if victim = oldestWaiting(p.spare); victim == nil {
			p.mu.Unlock()
			p.shed.WithLabelValues("refused").Inc()
			return nil
		}
		p.forget(victim)
		pc.spare = true
		p.spare[pc] = struct{}{}
	}
	p.mu.Unlock()
	if victim != nil {
		// The inner connection: the server's goroutine sees its read fail and closes the wrapper, whose
		// release is then a no-op.
		victim.Conn.Close()
		p.shed.WithLabelValues("idle_closed_" + reason).Inc()
	}
	if pc.spare {
		p.shed.WithLabelValues("health_reserve").Inc()
	}
	return pc
}

// forget takes c out of the pool's accounting; the caller holds p.mu.
func (p *connPool) forget(c *poolConn) {
	if c == nil || c.released.Swap(true) {
		return
	}
	if c.spare {
		delete(p.spare, c)
		return
	}
	delete(p.main, c)
	if set := p.byAddr[c.addr]; set != nil {
		delete(set, c)
		if len(set) == 0 {
			delete(p.byAddr, c.addr)
		}
	}
}

func (p *connPool) release(c *poolConn) {
	if c.released.Load() {
		return
	}
	p.mu.Lock()
	p.forget(c)
	p.mu.Unlock()
}

// oldestWaiting is the connection of set that has waited longest, nil when all are busy. The scan happens
// only when the pool or an address is full, and the set is at most the pool.
func oldestWaiting(set map[*poolConn]struct{}) *poolConn {
	var best *poolConn
	var bestSince int64
	for c := range set {
		if c.state.Load() != connWaiting {
			continue
		}
		if s := c.since.Load(); best == nil || s < bestSince {
			best, bestSince = c, s
		}
	}
	return best
}

// track is the server's ConnState hook.
func (p *connPool) track(c net.Conn, st http.ConnState) {
	pc, ok := c.(*poolConn)
	if !ok {
		return
	}
	switch st {
	case http.StateActive, http.StateHijacked:
		pc.state.Store(connBusy)
	case http.StateIdle:
		pc.since.Store(p.clock())
		pc.state.Store(connWaiting)
	case http.StateClosed:
		p.release(pc)
	}
}

func (c *poolConn) Close() error {
	c.pool.release(c)
	return c.Conn.Close()
}

// poolListener admits each accepted connection through the pool.
type poolListener struct {
	net.Listener
	pool *connPool
}

func (l *poolListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		if pc := l.pool.admit(c); pc != nil {
			return pc, nil
		}
		c.Close()
	}
}

type spareKey struct{}

// connContext marks the requests of a reserve connection for reserveGuard.
func connContext(ctx context.Context, c net.Conn) context.Context {
	if pc, ok := c.(*poolConn); ok && pc.spare {
		return context.WithValue(ctx, spareKey{}, true)
	}
	return ctx
}

// reserveGuard serves the health endpoints on reserve connections and answers anything else there with 503;
// every answer on the reserve closes its connection, so the reserve empties as fast as it fills.
func reserveGuard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Context().Value(spareKey{}) == nil {
			next.ServeHTTP(w, r)
			return
		}
		w.Header().Set("Connection", "close")
		switch r.URL.Path {
		case "/healthz", "/readyz", "/metrics":
			next.ServeHTTP(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		w.Header().Set("Retry-After", "1")
		w.WriteHeader(http.StatusServiceUnavailable)
		_, _ = w.Write([]byte(`{"success":false,"error":"server busy","message":"Every connection is in use; retry in a second."}` + "\n"))
	})
}

func peerHost(a net.Addr) string {
	if ta, ok := a.(*net.TCPAddr); ok {
		return ta.IP.String()
	}
	if host, _, err := net.SplitHostPort(a.String()); err == nil {
		return host
	}
	return a.String()
}

func isLoopback(host string) bool {
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
