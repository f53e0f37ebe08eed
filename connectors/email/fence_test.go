package email

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/emersion/go-imap/v2"
	"github.com/emersion/go-imap/v2/imapserver"
	"github.com/sirupsen/logrus"

	"github.com/feedbridge/feedbridge/connectors"
)

// TestNoTwoPollers: two replicas share one mailbox with short leases. In turn the holder's lease renewals
// stall (its store hangs, or the process is frozen) or it stops; the other takes over each time. Seen from the
// IMAP server, sessions of two replicas never have the mailbox selected at once, and every message is one
// record.
func TestNoTwoPollers(t *testing.T) {
	mbox := new(selections)
	tg := startMemServer(t, memOptions{wrap: func(s imapserver.Session) imapserver.Session {
		return &taggedSession{moveSession: s.(moveSession), sel: mbox}
	}})
	fx := newFixture(t)
	tg.create(t, tg.box("Feedback"))
	mbox.name = tg.box("Feedback")
	timing := connectors.LeaseTiming{TTL: 600 * time.Millisecond, Renew: 100 * time.Millisecond, Retry: 80 * time.Millisecond, Stop: 200 * time.Millisecond}

	type replica struct {
		tag   string
		lease *stallLeases
		stop  func()
	}
	start := func(tag string, l *stallLeases) *replica {
		lg := logrus.New()
		lg.SetOutput(fx.logs)
		s, err := Build([]map[string]any{fx.entryConfig(tg, map[string]any{"password": tg.pass + "#" + tag})}, connectors.Env{
			Service: l, Log: logrus.NewEntry(lg), Metrics: newRegistry(), Holder: "replica-" + tag, Lease: timing,
		})
		if err != nil {
			t.Fatal(err)
		}
		return &replica{tag: tag, lease: l, stop: run(t, s.(*set))}
	}
	rs := []*replica{start("A", &stallLeases{Service: fx.svc}), start("B", &stallLeases{Service: fx.svc})}

	var sent atomic.Int64
	send := func(n int) {
		for range n {
			i := int(sent.Add(1))
			tg.appendRaw(t, tg.box("Feedback"), simpleMessage(i, "fence"))
		}
	}
	holderTag := func() string {
		waitFor(t, 10*time.Second, "a replica to poll the mailbox", func() bool { return mbox.current() != "" })
		return mbox.current()
	}
	const rounds = 6
	for round := range rounds {
		send(5)
		from := holderTag()
		var holder, other *replica
		for _, r := range rs {
			if r.tag == from {
				holder = r
			} else {
				other = r
			}
		}
		stopped := round%3 == 2
		if stopped {
			holder.stop() // a clean stop hands the lease over at once
		} else {
			holder.lease.stall(true)
		}
		waitFor(t, 10*time.Second, "replica "+other.tag+" to take the mailbox over", func() bool {
			if v := mbox.violations(); v != nil {
				t.Fatalf("round %d: two replicas had the mailbox selected at once: %v", round, v)
			}
			return mbox.current() == other.tag
		})
		if stopped {
			holder = start(holder.tag, &stallLeases{Service: fx.svc})
		}
		holder.lease.stall(false)
		rs = []*replica{holder, other}
	}
	send(5)
	want := int(sent.Load())
	waitFor(t, 20*time.Second, "every message recorded", func() bool { return len(fx.records(t)) >= want })
	time.Sleep(300 * time.Millisecond)
	if got := len(fx.records(t)); got != want {
		t.Errorf("%d records for %d messages", got, want)
	}
	if v := mbox.violations(); v != nil {
		t.Fatalf("two replicas had the mailbox selected at once: %v", v)
	}
	if n := mbox.handovers(); n < rounds {
		t.Errorf("%d handovers seen by the server, want at least %d", n, rounds)
	}
}

// stallLeases is the service a replica's entries get: it passes lease calls on until stalled; then each
// call hangs until its context ends, as when the replica's store connection hangs.
type stallLeases struct {
	connectors.Service
	stalled atomic.Bool
}

func (l *stallLeases) stall(v bool) { l.stalled.Store(v) }

func (l *stallLeases) TryAcquire(ctx context.Context, name, holder string, ttl time.Duration) (bool, error) {
	if l.stalled.Load() {
		<-ctx.Done()
		return false, ctx.Err()
	}
	return l.Service.TryAcquire(ctx, name, holder, ttl)
}

// selections is the server's view of which replica has the mailbox selected, from the tag each replica
// appends to its password.
type selections struct {
	name    string
	mu      sync.Mutex
	open    map[string]int
	last    string
	changes int
	bad     []string
}

func (s *selections) selected(tag string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.open == nil {
		s.open = map[string]int{}
	}
	for other, n := range s.open {
		if other != tag && n > 0 {
			s.bad = append(s.bad, fmt.Sprintf("%s selected while %s had %d sessions open", tag, other, n))
		}
	}
	s.open[tag]++
	if tag != s.last {
		s.last = tag
		s.changes++
	}
}

func (s *selections) closed(tag string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.open[tag]--
}

// current is the replica that holds the mailbox selected now, "" when none does.
func (s *selections) current() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.open[s.last] > 0 {
		return s.last
	}
	return ""
}

func (s *selections) violations() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.bad
}

func (s *selections) handovers() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.changes - 1
}

// taggedSession strips the replica's tag from the password and reports its selections of the mailbox.
type taggedSession struct {
	moveSession
	sel      *selections
	tag      string
	selected bool
}

func (s *taggedSession) Login(user, pass string) error {
	pass, s.tag, _ = strings.Cut(pass, "#")
	return s.moveSession.Login(user, pass)
}

func (s *taggedSession) Select(mailbox string, opts *imap.SelectOptions) (*imap.SelectData, error) {
	data, err := s.moveSession.Select(mailbox, opts)
	if err == nil && mailbox == s.sel.name && !s.selected {
		s.selected = true
		s.sel.selected(s.tag)
	}
	return data, err
}

func (s *taggedSession) Close() error {
	if s.selected {
		s.selected = false
		s.sel.closed(s.tag)
	}
	return s.moveSession.Close()
}
