package daemon

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/feedbridge/feedbridge/config"
)

// poolServer is a real HTTP server on a real listener behind the pool: /block holds its request until the
// test ends, every other path answers "ok" at once.
type poolServer struct {
	t       *testing.T
	addr    string
	release chan struct{}
	pool    *connPool
}

func newPoolServer(t *testing.T, max, perClient int, limitLoopback bool) *poolServer {
	t.Helper()
	pool, err := newConnPool(max, perClient, nil)
	if err != nil {
		t.Fatal(err)
	}
	pool.limitLoopback = limitLoopback
	ln, err := listen(config.HTTP{Listen: "127.0.0.1:0"}, pool)
	if err != nil {
		t.Fatal(err)
	}
	s := &poolServer{t: t, addr: ln.Addr().String(), release: make(chan struct{}), pool: pool}
	mux := http.NewServeMux()
	mux.HandleFunc("/block", func(w http.ResponseWriter, r *http.Request) {
		<-s.release
		w.Write([]byte("ok"))
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("hold") != "" {
			<-s.release
		}
		w.Write([]byte("ok"))
	})
	srv := &http.Server{Handler: reserveGuard(mux), ConnState: pool.track, ConnContext: connContext}
	go srv.Serve(ln)
	var once sync.Once
	t.Cleanup(func() {
		once.Do(func() { close(s.release) })
		srv.Close()
	})
	return s
}

// conn is one client connection from a chosen loopback address.
type conn struct {
	t *testing.T
	c net.Conn
	r *bufio.Reader
}

func (s *poolServer) dial(from string) *conn {
	s.t.Helper()
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(from)}, Timeout: 5 * time.Second}
	c, err := d.Dial("tcp", s.addr)
	if err != nil {
		s.t.Fatal(err)
	}
	s.t.Cleanup(func() { c.Close() })
	return &conn{t: s.t, c: c, r: bufio.NewReader(c)}
}

// get sends GET path and returns the status, or 0 when no answer came within d.
func (c *conn) get(path string, d time.Duration) (int, http.Header) {
	c.c.SetDeadline(time.Now().Add(d))
	defer c.c.SetDeadline(time.Time{})
	if _, err := io.WriteString(c.c, "GET "+path+" HTTP/1.1\r\nHost: x\r\n\r\n"); err != nil {
		return 0, nil
	}
	res, err := http.ReadResponse(c.r, nil)
	if err != nil {
		return 0, nil
	}
	io.Copy(io.Discard, res.Body)
	res.Body.Close()
	return res.StatusCode, res.Header
}

// send starts a request without waiting for its answer.
func (c *conn) send(path string) {
	if _, err := io.WriteString(c.c, "GET "+path+" HTTP/1.1\r\nHost: x\r\n\r\n"); err != nil {
		c.t.Fatal(err)
	}
}

// closed reports whether the server closed the connection within d.
func (c *conn) closed(d time.Duration) bool {
	c.c.SetReadDeadline(time.Now().Add(d))
	defer c.c.SetReadDeadline(time.Time{})
	_, err := c.r.ReadByte()
	return err == io.EOF
}

// busy waits until the pool sees n connections serving a request.
func (s *poolServer) busy(n int) {
	s.t.Helper()
	s.await(n, connBusy, "busy")
}

// idleSince waits until the pool has marked c idle at or after clock value after: a client reads its answer
// before the server's goroutine marks the connection idle, so a test that needs an order of idleness waits
// for each mark.
func (s *poolServer) idleSince(c *conn, after int64) {
	s.t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		s.pool.mu.Lock()
		marked := false
		for pc := range s.pool.main {
			if pc.RemoteAddr().String() == c.c.LocalAddr().String() {
				marked = pc.state.Load() == connWaiting && pc.since.Load() >= after
			}
		}
		s.pool.mu.Unlock()
		if marked {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
	s.t.Fatal("the connection was not marked idle")
}

func (s *poolServer) await(n int, state int32, what string) {
	s.t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		s.pool.mu.Lock()
		got := 0
		for c := range s.pool.main {
			if c.state.Load() == state {
				got++
			}
		}
		s.pool.mu.Unlock()
		if got >= n {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
	s.t.Fatalf("fewer than %d connections became %s", n, what)
}

// A full pool of idle keep-alives no longer keeps a new client out: the longest-idle one makes room. Before
// the pool, the listener made the new connection wait until one of them closed on its own (minutes).
func TestPoolClosesLongestIdleWhenFull(t *testing.T) {
	for _, tc := range []struct {
		name      string
		perClient int
	}{{"pool full", 0}, {"client share full", 2}} {
		t.Run(tc.name, func(t *testing.T) {
			max := 2
			if tc.perClient > 0 {
				max = 10
			}
			s := newPoolServer(t, max, tc.perClient, true)
			first, second := s.dial("127.0.0.1"), s.dial("127.0.0.1")
			for _, c := range []*conn{first, second} {
				before := s.pool.clock()
				if code, _ := c.get("/", 5*time.Second); code != 200 {
					t.Fatalf("keep-alive request: %d", code)
				}
				s.idleSince(c, before)
			}
			third := s.dial("127.0.0.1")
			if code, _ := third.get("/", 2*time.Second); code != 200 {
				t.Fatalf("a new connection beside idle keep-alives: %d, want 200", code)
			}
			if !first.closed(2 * time.Second) {
				t.Error("the longest-idle connection was not closed")
			}
			if code, _ := second.get("/", 2*time.Second); code != 200 {
				t.Errorf("the newer idle connection was closed too: %d", code)
			}
		})
	}
}

// When every connection is serving a request, a new one is served on the health reserve: the health paths
// answer, anything else gets 503 with Retry-After, and the reserve closes its connections after one answer.
func TestPoolReserveAnswersHealthOnly(t *testing.T) {
	s := newPoolServer(t, 2, 0, true)
	for range 2 {
		s.dial("127.0.0.1").send("/block")
	}
	s.busy(2)
	for _, tc := range []struct {
		path string
		want int
	}{{"/healthz", 200}, {"/readyz", 200}, {"/metrics", 200}, {"/api/records", 503}, {"/hooks/crm", 503}} {
		t.Run(tc.path, func(t *testing.T) {
			c := s.dial("127.0.0.1")
			code, h := c.get(tc.path, 2*time.Second)
			if code != tc.want {
				t.Fatalf("%s on a full pool: %d, want %d", tc.path, code, tc.want)
			}
			if tc.want == 503 && h.Get("Retry-After") == "" {
				t.Error("503 without Retry-After")
			}
			if !c.closed(2 * time.Second) {
				t.Error("a reserve connection stayed open after its answer")
			}
		})
	}
}

// Past the reserve a connection is closed at once rather than left waiting; a reserve connection that has
// sent nothing gives its place up like any waiting one.
func TestPoolPastTheReserve(t *testing.T) {
	for _, tc := range []struct {
		name     string
		holdBusy bool // the reserve's one place serves a request; else its connection sent nothing
		want     int
	}{{"reserve busy", true, 0}, {"reserve waiting", false, 200}} {
		t.Run(tc.name, func(t *testing.T) {
			s := newPoolServer(t, 1, 0, true)
			s.pool.reserve = 1
			s.dial("127.0.0.1").send("/block")
			s.busy(1)
			spare := s.dial("127.0.0.1")
			if tc.holdBusy {
				spare.send("/healthz?hold=1")
			}
			s.waitSpare(1, tc.holdBusy)
			late := s.dial("127.0.0.1")
			code, _ := late.get("/healthz", 2*time.Second)
			if code != tc.want {
				t.Fatalf("a connection past a full reserve: %d, want %d", code, tc.want)
			}
			if tc.want == 0 && !late.closed(time.Second) {
				t.Error("a refused connection was left open")
			}
		})
	}
}

// waitSpare waits until the reserve holds n connections (busy ones when busy is set).
func (s *poolServer) waitSpare(n int, busy bool) {
	s.t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		s.pool.mu.Lock()
		got := 0
		for c := range s.pool.spare {
			if !busy || c.state.Load() == connBusy {
				got++
			}
		}
		s.pool.mu.Unlock()
		if got >= n {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
	s.t.Fatalf("the reserve did not reach %d connections", n)
}

// The per-client share: one address's busy connections do not keep another address out, and loopback is
// exempt unless the pool is told otherwise.
func TestPoolClientShare(t *testing.T) {
	for _, tc := range []struct {
		name          string
		limitLoopback bool
		sameAddr      int // status of a third busy-address request
	}{{"limited", true, 503}, {"loopback exempt", false, 200}} {
		t.Run(tc.name, func(t *testing.T) {
			s := newPoolServer(t, 10, 2, tc.limitLoopback)
			for range 2 {
				s.dial("127.0.0.1").send("/block")
			}
			s.busy(2)
			if code, _ := s.dial("127.0.0.1").get("/", 2*time.Second); code != tc.sameAddr {
				t.Errorf("third connection from the busy address: %d, want %d", code, tc.sameAddr)
			}
			if code, _ := s.dial("127.0.0.2").get("/", 2*time.Second); code != 200 {
				t.Errorf("another address: %d, want 200", code)
			}
		})
	}
}
