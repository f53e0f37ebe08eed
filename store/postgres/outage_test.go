package postgres_test

import (
	"context"
	"errors"
	"io"
	"net"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/feedbridge/feedbridge/core"
	"github.com/feedbridge/feedbridge/store/postgres"
	"github.com/feedbridge/feedbridge/store/postgres/pgtest"
)

// cutter is a TCP proxy in front of PostgreSQL that the test can cut (refusing new connections and breaking
// the open ones, as a crashed or restarting server does) and restore on the same address.
type cutter struct {
	t      *testing.T
	addr   string
	target string
	mu     sync.Mutex
	ln     net.Listener
	conns  []net.Conn
}

func newCutter(t *testing.T, target string) *cutter {
	c := &cutter{t: t, target: target}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	c.addr = ln.Addr().String()
	c.serve(ln)
	t.Cleanup(c.cut)
	return c
}

func (c *cutter) serve(ln net.Listener) {
	c.mu.Lock()
	c.ln = ln
	c.mu.Unlock()
	go func() {
		for {
			in, err := ln.Accept()
			if err != nil {
				return
			}
			out, err := net.Dial("tcp", c.target)
			if err != nil {
				in.Close()
				continue
			}
			c.mu.Lock()
			c.conns = append(c.conns, in, out)
			c.mu.Unlock()
			go func() { io.Copy(out, in); out.Close() }()
			go func() { io.Copy(in, out); in.Close() }()
		}
	}()
}

func (c *cutter) cut() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ln != nil {
		c.ln.Close()
		c.ln = nil
	}
	for _, conn := range c.conns {
		conn.Close()
	}
	c.conns = nil
}

func (c *cutter) restore() {
	ln, err := net.Listen("tcp", c.addr)
	if err != nil {
		c.t.Fatalf("listen again on %s: %v", c.addr, err)
	}
	c.serve(ln)
}

// While the database is unreachable every call fails with core.ErrUnavailable (the API's 503), and once it
// is back the same Store works again without being reopened.
func TestOutageAndRecovery(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	u, err := url.Parse(pgtest.URL(t))
	if err != nil {
		t.Fatal(err)
	}
	cut := newCutter(t, u.Host)
	u.Host = cut.addr
	q := u.Query()
	q.Set("connect_timeout", "2")
	u.RawQuery = q.Encode()
	st, err := postgres.Open(ctx, u.String())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ws := workspace(t, st, 0)

	calls := []struct {
		name string
		call func(ctx context.Context) error
	}{
		{"ping", st.Ping},
		{"create record", func(ctx context.Context) error {
			_, _, err := st.CreateRecord(ctx, ws.ID, newRecord("during outage"))
			return err
		}},
		{"bulk create", func(ctx context.Context) error {
			_, err := st.CreateRecords(ctx, ws.ID, []core.NewRecord{newRecord("bulk during outage")})
			return err
		}},
		{"list", func(ctx context.Context) error {
			_, err := st.Records(ctx, ws.ID, core.ListQuery{Type: core.RecordFeedback, Limit: 10})
			return err
		}},
		{"lease", func(ctx context.Context) error {
			_, err := st.TryAcquire(ctx, "x", "me", time.Minute)
			return err
		}},
		{"claim", func(ctx context.Context) error {
			_, err := st.ClaimInsightJobs(ctx, "w", 1, time.Minute)
			return err
		}},
	}
	cut.cut()
	for _, c := range calls {
		t.Run("down/"+c.name, func(t *testing.T) {
			cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
			defer cancel()
			if err := c.call(cctx); !errors.Is(err, core.ErrUnavailable) {
				t.Errorf("got %v, want an error wrapping core.ErrUnavailable", err)
			}
		})
	}
	cut.restore()
	for _, c := range calls {
		t.Run("back/"+c.name, func(t *testing.T) {
			deadline := time.Now().Add(10 * time.Second)
			for {
				err := c.call(ctx)
				if err == nil {
					return
				}
				if time.Now().After(deadline) {
					t.Fatalf("still failing 10 s after the database came back: %v", err)
				}
				time.Sleep(100 * time.Millisecond)
			}
		})
	}
}

func TestClosedAndUnreachable(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := pgtest.Open(t)
	st.Close()
	if err := st.Ping(ctx); !errors.Is(err, core.ErrUnavailable) {
		t.Errorf("ping on a closed store: %v, want ErrUnavailable", err)
	}

	// Nothing listens on port 1; the error must say unavailable and never show the password.
	_, err := postgres.Open(ctx, "postgres://feedbridge:s3cret-pw@127.0.0.1:1/db?sslmode=disable&connect_timeout=2")
	if !errors.Is(err, core.ErrUnavailable) {
		t.Errorf("open on a dead port: %v, want ErrUnavailable", err)
	}
	if err != nil && strings.Contains(err.Error(), "s3cret-pw") {
		t.Errorf("error shows the password: %v", err)
	}
	_, err = postgres.Open(ctx, "postgres://feedbridge:s3cret-pw@127.0.0.1:5432/db?sslmode=bogus")
	if err == nil || strings.Contains(err.Error(), "s3cret-pw") {
		t.Errorf("open with a bad URL: %v, want an error without the password", err)
	}
}
