package connectors

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/sirupsen/logrus"

	"github.com/feedbridge/feedbridge/core"
	"github.com/feedbridge/feedbridge/internal/testkit"
	"github.com/feedbridge/feedbridge/store/sqlite"
)

type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *fakeClock) add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

func TestGuardLimitsFailuresPerAddress(t *testing.T) {
	clk := &fakeClock{t: time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)}
	g := NewGuard(clk.now)
	g.Limits.FailureBurst, g.Limits.FailurePerSecond = 3, 1
	for i := range 3 {
		if limited, _ := g.Limited("10.0.0.1"); limited {
			t.Fatalf("limited after %d failures of a budget of 3", i)
		}
		g.Failed("10.0.0.1")
	}
	limited, retry := g.Limited("10.0.0.1")
	if !limited || retry <= 0 || retry > time.Second {
		t.Fatalf("after the budget: limited %v, retry %v", limited, retry)
	}
	if limited, _ := g.Limited("10.0.0.2"); limited {
		t.Fatal("another address was limited")
	}
	clk.add(time.Second)
	if limited, _ := g.Limited("10.0.0.1"); limited {
		t.Fatal("still limited after a second's refill")
	}
}

func TestGuardSamplesTheRefusalLog(t *testing.T) {
	clk := &fakeClock{t: time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)}
	g := NewGuard(clk.now)
	var buf testkit.Buffer
	l := logrus.New()
	l.SetOutput(&buf)
	l.SetFormatter(&logrus.JSONFormatter{})
	log := logrus.NewEntry(l)
	lines := func() []string { return strings.Split(strings.TrimSpace(buf.String()), "\n") }
	for range 100 {
		g.LogRefusal(log, "crm", logrus.Fields{"remote": "10.0.0.1"}, errors.New("invalid signature"))
	}
	g.LogRefusal(log, "other", nil, errors.New("invalid signature"))
	if n := len(lines()); n != 2 {
		t.Fatalf("%d lines for 100 refusals of one key and one of another, want 2:\n%s", n, buf.String())
	}
	clk.add(g.Limits.LogEvery)
	g.LogRefusal(log, "crm", nil, errors.New("invalid signature"))
	last := lines()[2]
	if !strings.Contains(last, `"refused_unlogged":99`) {
		t.Fatalf("the next line does not count the 99 unlogged refusals: %s", last)
	}
}

// Bodies read before authentication share a byte budget, and one address holds at most a quarter of it:
// held uploads past it are answered 503 at once, and a finished upload frees its part.
func TestGuardBoundsUnauthenticatedReads(t *testing.T) {
	g := NewGuard(nil)
	g.Limits.BodyBudget = 4000
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := g.ReadBody(w, r, 2000)
		if errors.Is(err, ErrBusy) {
			Busy(w)
			return
		}
		fmt.Fprint(w, len(body))
	}))
	t.Cleanup(srv.Close) // after the held connections close, or it waits for them
	addr := srv.Listener.Addr().String()
	// hold starts an upload of 1000 declared bytes from ip and sends 10 of them.
	hold := func(ip string) net.Conn {
		d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}}
		c, err := d.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		fmt.Fprintf(c, "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n%s", strings.Repeat("a", 10))
		return c
	}
	status := func(c net.Conn) int {
		c.SetReadDeadline(time.Now().Add(3 * time.Second))
		res, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			return 0
		}
		res.Body.Close()
		return res.StatusCode
	}
	held := func(n int64) {
		deadline := time.Now().Add(3 * time.Second)
		for time.Now().Before(deadline) {
			g.mu.Lock()
			got := g.inFlight
			g.mu.Unlock()
			if got == n {
				return
			}
			time.Sleep(5 * time.Millisecond)
		}
		t.Fatalf("the held uploads never reached %d bytes", n)
	}
	first := hold("127.0.0.1")
	held(1000)
	if code := status(hold("127.0.0.1")); code != 503 {
		t.Fatalf("a second held upload from the same address: %d, want 503", code)
	}
	for i, ip := range []string{"127.0.0.2", "127.0.0.3", "127.0.0.4"} {
		hold(ip)
		held(int64(2+i) * 1000)
	}
	if code := status(hold("127.0.0.5")); code != 503 {
		t.Fatalf("an upload past the whole budget: %d, want 503", code)
	}
	io.WriteString(first, strings.Repeat("a", 990))
	if code := status(first); code != 200 {
		t.Fatalf("the finished upload: %d", code)
	}
	held(3000)
	next := hold("127.0.0.5")
	held(4000)
	next.Close()
}

// A flood of refusals is written at the next flush, once, not once per request; they show apart from
// last_error (a refusal is no fault of the entry: /readyz does not list it), are counted in the kit's
// metric, add up over replicas, and a fault given as an error value reaches the fault hook as that value.
func TestBoardWritesRefusalsAtFlush(t *testing.T) {
	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "fb.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	svc := core.NewService(st, core.Options{})
	ws, err := svc.CreateWorkspace(ctx, "Acme", core.PlanPro, -1)
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	reg := prometheus.NewRegistry()
	var faults []error
	env := Env{Service: svc, Metrics: reg, Now: func() time.Time { return at },
		Faults: func(kind, name string, err error) { faults = append(faults, err) }}
	b, err := NewBoard(env, "webhook")
	if err != nil {
		t.Fatal(err)
	}
	b.Add("crm", ws.ID)
	if err := b.Flush(ctx, StateRunning, true); err != nil {
		t.Fatal(err)
	}
	shown := func() core.ConnectorStatus {
		sts, err := svc.Connectors(ctx, ws.ID)
		if err != nil || len(sts) != 1 {
			t.Fatalf("statuses %v, %v", sts, err)
		}
		return sts[0]
	}
	for range 1000 {
		b.Refused("crm", "invalid signature")
	}
	if got := shown(); got.Refused != 0 {
		t.Fatalf("refusals were written before the flush: %+v", got)
	}
	if err := b.Flush(ctx, StateRunning, false); err != nil {
		t.Fatal(err)
	}
	got := shown()
	if got.Refused != 1000 || got.LastRefused != "invalid signature" || !got.LastRefusedAt.Equal(at) || got.LastError != "" {
		t.Fatalf("after the flush: %+v, want 1000 refused, the reason, its time and no last_error", got)
	}
	if f := svc.Faults().List(); len(f) != 0 {
		t.Fatalf("refusals made the entry failing: %v", f)
	}
	if n := testutil.ToFloat64(b.refused.WithLabelValues("webhook", "crm")); n != 1000 {
		t.Fatalf("feedbridge_connector_refused_total %v, want 1000", n)
	}
	// Another replica's board writes its own refusals: the store adds them.
	other, err := NewBoard(Env{Service: svc, Now: func() time.Time { return at.Add(time.Minute) }}, "webhook")
	if err != nil {
		t.Fatal(err)
	}
	other.Add("crm", ws.ID)
	other.Refused("crm", "token missing")
	// A flush with nothing new adds nothing.
	if err := b.Flush(ctx, StateRunning, true); err != nil {
		t.Fatal(err)
	}
	if err := other.Flush(ctx, StateRunning, true); err != nil {
		t.Fatal(err)
	}
	if got := shown(); got.Refused != 1001 || got.LastRefused != "token missing" {
		t.Fatalf("two replicas: %+v, want 1001 refused, the newer reason", got)
	}
	b.Succeeded("crm")
	cause := fmt.Errorf("insert: %w", core.ErrWorkspaceNotFound)
	b.Fail("crm", Fault("the record could not be saved", cause))
	if err := b.Flush(ctx, StateError, false); err != nil {
		t.Fatal(err)
	}
	if got := shown(); got.LastError != "the record could not be saved" || got.Refused != 1001 {
		t.Fatalf("a fault and the refusals: %+v", got)
	}
	if len(faults) != 1 || !errors.Is(faults[0], core.ErrWorkspaceNotFound) {
		t.Fatalf("fault hook got %v, want the error value", faults)
	}
}

// A refusal's reason is kept on one line and cut short: outside text shows only as a short excerpt.
func TestShortReason(t *testing.T) {
	if got := shortReason("  bad\r\n\tsubject:\x00 <b>x</b> "); got != "bad subject: <b>x</b>" {
		t.Fatalf("got %q", got)
	}
	long := shortReason(strings.Repeat("é", 500))
	if n := utf8.RuneCountInString(long); n != maxReason+1 || !strings.HasSuffix(long, "…") {
		t.Fatalf("%d characters: %q", n, long)
	}
}
