package email

import (
	"bufio"
	"bytes"
	"fmt"
	"net"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/emersion/go-imap/v2"
	"github.com/emersion/go-imap/v2/imapclient"
	"github.com/emersion/go-imap/v2/imapserver"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/feedbridge/feedbridge/connectors"
)

// TestUIDValidityChange: a mailbox that is recreated (new UIDVALIDITY, UIDs starting over) is read again
// from the start, and the messages already recorded create nothing new.
func TestUIDValidityChange(t *testing.T) {
	eachServer(t, func(t *testing.T, tg *imapTarget) {
		fx := newFixture(t)
		entry := fx.entryConfig(tg, map[string]any{"processed_mailbox": "", "failed_mailbox": ""})
		box := tg.box("Feedback")
		old := [][]byte{simpleMessage(1, "uv"), simpleMessage(2, "uv"), simpleMessage(3, "uv")}
		tg.create(t, box)
		tg.appendRaw(t, box, old...)
		stop := run(t, fx.build(t, entry))
		waitFor(t, 20*time.Second, "three records", func() bool { return len(fx.records(t)) == 3 })
		stop()
		before := mailboxUIDValidity(t, tg, box)

		c := tg.client(t)
		if err := c.Delete(box).Wait(); err != nil {
			t.Fatal(err)
		}
		tg.create(t, box)
		tg.appendRaw(t, box, append(old, simpleMessage(4, "uv"))...)
		after := mailboxUIDValidity(t, tg, box)
		if after == before {
			t.Fatalf("recreating the mailbox kept UIDVALIDITY %d; the test needs a change", after)
		}

		fx.reg = newRegistry()
		run(t, fx.build(t, entry))
		waitFor(t, 20*time.Second, "the fourth message", func() bool {
			return len(fx.records(t)) == 4 && fx.counter(t, "feedbridge_email_messages_skipped_total", "reason", SkipDuplicate) == 3
		})
		if got, want := fx.checkpoint(t, "email:support-inbox:"+box), "v1:"+itoa(after)+":4"; got != want {
			t.Errorf("checkpoint %q, want %q", got, want)
		}
		if !fx.logs.contains("UIDVALIDITY changed") {
			t.Error("the UIDVALIDITY change was not logged")
		}
	})
}

// TestMoveFailsAfterStore: the server refuses MOVE after the records were stored. The connector reports the
// error and retries; once the server works again the messages are moved, and nothing is stored twice.
func TestMoveFailsAfterStore(t *testing.T) {
	tg := startMemServer(t, memOptions{})
	fx := newFixture(t)
	tg.create(t, tg.box("Feedback"))
	tg.appendRaw(t, tg.box("Feedback"), simpleMessage(1, "mv"), simpleMessage(2, "mv"), simpleMessage(3, "mv"))
	tg.mem.faults.set(true)
	run(t, fx.build(t, fx.entryConfig(tg, nil)))

	waitFor(t, 20*time.Second, "records stored and the move failing", func() bool {
		st := fx.status(t)
		return len(fx.records(t)) == 3 && st.State == string(connectors.StateError) && strings.Contains(st.LastError, "injected fault")
	})
	if n := len(tg.messages(t, tg.box("Feedback"))); n != 3 {
		t.Fatalf("%d messages left in the mailbox while MOVE fails, want 3", n)
	}
	tg.mem.faults.set(false)
	waitFor(t, 20*time.Second, "the messages moved", func() bool {
		return len(tg.messages(t, tg.box("Feedback"))) == 0 && len(tg.messages(t, tg.box("Processed"))) == 3
	})
	if n := len(fx.records(t)); n != 3 {
		t.Errorf("%d records, want 3", n)
	}
	waitFor(t, 10*time.Second, "state running", func() bool { return fx.status(t).State == string(connectors.StateRunning) })
}

// TestServerRestart: the IMAP server goes away mid-poll and comes back on the same address; mail delivered
// meanwhile is read once it is back.
func TestServerRestart(t *testing.T) {
	tg := startMemServer(t, memOptions{})
	fx := newFixture(t)
	tg.create(t, tg.box("Feedback"))
	tg.appendRaw(t, tg.box("Feedback"), simpleMessage(1, "rs"), simpleMessage(2, "rs"))
	run(t, fx.build(t, fx.entryConfig(tg, map[string]any{"poll_interval": "1h"})))
	waitFor(t, 20*time.Second, "two records", func() bool { return len(fx.records(t)) == 2 })

	tg.mem.stop()
	for i := 3; i <= 4; i++ {
		raw := simpleMessage(i, "rs")
		if _, err := tg.mem.user.Append(tg.box("Feedback"), bytes.NewReader(raw), &imap.AppendOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	waitFor(t, 20*time.Second, "the outage to be noticed", func() bool { return fx.status(t).State == string(connectors.StateError) })
	tg.mem.start()
	waitFor(t, 20*time.Second, "the mail delivered during the outage", func() bool {
		return len(fx.records(t)) == 4 && fx.status(t).State == string(connectors.StateRunning)
	})
}

// TestOneReplicaPolls: two replicas share the store; only the lease holder reads the mailbox, so every
// message is fetched exactly once in total.
func TestOneReplicaPolls(t *testing.T) {
	tg := startMemServer(t, memOptions{})
	fx := newFixture(t)
	tg.create(t, tg.box("Feedback"))
	regA := fx.reg
	run(t, fx.build(t, fx.entryConfig(tg, nil)))
	fx.reg = newRegistry()
	regB := fx.reg
	run(t, fx.build(t, fx.entryConfig(tg, nil)))
	for i := 1; i <= 5; i++ {
		tg.appendRaw(t, tg.box("Feedback"), simpleMessage(i, "ex"))
	}
	waitFor(t, 20*time.Second, "five records", func() bool { return len(fx.records(t)) == 5 })
	time.Sleep(300 * time.Millisecond) // a second poller, were there one, would fetch now
	fx.reg = regA
	a := fx.counter(t, "feedbridge_email_messages_fetched_total")
	fx.reg = regB
	b := fx.counter(t, "feedbridge_email_messages_fetched_total")
	if a+b != 5 || (a != 0 && b != 0) {
		t.Errorf("replicas fetched %v and %v messages, want 5 by one of them", a, b)
	}
}

// TestFetchConnectionLostMidMessage: the connection drops in the middle of a message's literal (as at
// shutdown, when the session's connection is closed under a FETCH). The fetch fails, and nothing reads the
// rest of the literal from go-imap's buffer while its reader goroutine decodes the next response: under
// -race, discarding it there was a data race (found by the e2e race step at SIGTERM).
func TestFetchConnectionLostMidMessage(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() { // a server that announces a 100,000-byte message and hangs up after 5,000 bytes of it
		conn, err := ln.Accept()
		if err != nil {
			return
		}
		defer conn.Close()
		fmt.Fprint(conn, "* OK [CAPABILITY IMAP4rev1] ready\r\n")
		if _, err := bufio.NewReader(conn).ReadString('\n'); err != nil { // the UID FETCH
			return
		}
		fmt.Fprint(conn, "* 1 FETCH (UID 7 BODY[] {100000}\r\n")
		conn.Write(bytes.Repeat([]byte("x"), 5000))
	}()
	c, err := imapclient.DialInsecure(ln.Addr().String(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.WaitGreeting(); err != nil {
		t.Fatal(err)
	}
	e := &entry{parser: NewParser(nil), m: mustMetrics(t).forMailbox("support-inbox", "INBOX")}
	p := newParsePool(e.parser, 1, nil)
	defer p.close()
	sent := 0
	err = e.fetch(c, []imap.UID{7}, p, func(*batch) bool { sent++; return true })
	if err == nil || !strings.Contains(err.Error(), "fetch uid 7") {
		t.Fatalf("fetch = %v, want the broken message's error", err)
	}
	if sent != 0 {
		t.Errorf("%d batches sent from a broken fetch, want 0", sent)
	}
	if p.held != 0 {
		t.Errorf("%d raw bytes still held after the failed read, want 0", p.held)
	}
}

// TestOneConnectionPerUser: a server that refuses a second login while the first has a mailbox open. A long
// catch-up moves its groups over the first connection instead, and every message is recorded and moved.
func TestOneConnectionPerUser(t *testing.T) {
	var (
		open    atomic.Int32
		limited atomic.Bool
	)
	tg := startMemServer(t, memOptions{wrap: func(s imapserver.Session) imapserver.Session {
		return &oneUserSession{moveSession: s.(moveSession), open: &open, limited: &limited}
	}})
	fx := newFixture(t)
	tg.create(t, tg.box("Feedback"))
	var msgs [][]byte
	for i := range 30 {
		msgs = append(msgs, simpleMessage(i, "one"))
	}
	tg.appendRaw(t, tg.box("Feedback"), msgs...)
	s := fx.build(t, fx.entryConfig(tg, nil))
	s.entries[0].batch, s.entries[0].disposeEvery = 5, 10
	limited.Store(true)
	stop := run(t, s)
	waitFor(t, 20*time.Second, "30 records", func() bool { return len(fx.records(t)) == 30 })
	waitFor(t, 20*time.Second, "the refused second login", func() bool {
		return fx.logs.contains("no second connection for moves")
	})
	stop()
	limited.Store(false) // the checks below log in one after another
	checkMailboxes(t, tg, true, 30, 0)
}

// oneUserSession refuses a login, while limited, when another session has a mailbox selected.
type oneUserSession struct {
	moveSession
	open     *atomic.Int32
	limited  *atomic.Bool
	selected bool
}

func (s *oneUserSession) Login(user, pass string) error {
	if s.limited.Load() && s.open.Load() > 0 {
		return &imap.Error{Type: imap.StatusResponseTypeNo, Text: "too many connections for this user"}
	}
	return s.moveSession.Login(user, pass)
}

func (s *oneUserSession) Select(mailbox string, opts *imap.SelectOptions) (*imap.SelectData, error) {
	data, err := s.moveSession.Select(mailbox, opts)
	if err == nil && !s.selected {
		s.selected = true
		s.open.Add(1)
	}
	return data, err
}

func (s *oneUserSession) Close() error {
	if s.selected {
		s.selected = false
		s.open.Add(-1)
	}
	return s.moveSession.Close()
}

// mustMetrics makes the kind's metrics on a registry of the test's own.
func mustMetrics(t testing.TB) *metrics {
	t.Helper()
	m, err := newMetrics(prometheus.NewRegistry())
	if err != nil {
		t.Fatal(err)
	}
	return m
}
