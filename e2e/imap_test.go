package e2e

import (
	"bytes"
	"fmt"
	"io"
	"log"
	"net"
	"strings"
	"sync"
	"testing"

	"github.com/emersion/go-imap/v2"
	"github.com/emersion/go-imap/v2/imapclient"
	"github.com/emersion/go-imap/v2/imapserver"
	"github.com/emersion/go-imap/v2/imapserver/imapmemserver"
)

// memIMAP is an in-process IMAP server for the daemons under test. Each daemon logs in with its own tag
// after a '#' in the password, which the server strips, so that the server can tell which replica has the
// mailbox selected: the one place where two pollers at once would be seen for certain.
type memIMAP struct {
	addr, user, pass string
	mu               sync.Mutex
	open             map[string]int // tag → sessions with INBOX selected now
	overlaps         []string
}

func startIMAP(t *testing.T) *memIMAP {
	t.Helper()
	m := &memIMAP{user: "feedback@example.com", pass: "e2e-imap-pass", open: map[string]int{}}
	mem := imapmemserver.New()
	u := imapmemserver.NewUser(m.user, m.pass)
	for _, box := range []string{"INBOX", "Processed"} {
		if err := u.Create(box, nil); err != nil {
			t.Fatal(err)
		}
	}
	mem.AddUser(u)
	srv := imapserver.New(&imapserver.Options{
		NewSession: func(*imapserver.Conn) (imapserver.Session, *imapserver.GreetingData, error) {
			return &watchedSession{Session: mem.NewSession(), m: m}, nil, nil
		},
		Caps:         imap.CapSet{imap.CapIMAP4rev1: {}, imap.CapUIDPlus: {}, imap.CapMove: {}},
		InsecureAuth: true,
		Logger:       log.New(io.Discard, "", 0),
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	m.addr = ln.Addr().String()
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return m
}

// entry is the YAML of an email connector entry for this server, logging in as tag.
func (m *memIMAP) entry(name, ws, tag string) string {
	return fmt.Sprintf(`    - {name: %s, workspace: %s, server: %q, security: none, username: %s, password: %q, mailbox: INBOX, processed_mailbox: Processed, poll_interval: 1s}
`, name, ws, m.addr, m.user, m.pass+"#"+tag)
}

func (m *memIMAP) client(t *testing.T) *imapclient.Client {
	t.Helper()
	c, err := imapclient.DialInsecure(m.addr, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Login(m.user, m.pass+"#test").Wait(); err != nil {
		t.Fatal(err)
	}
	return c
}

// deliver appends messages to INBOX, each with its own Message-ID.
func (m *memIMAP) deliver(t *testing.T, subjects ...string) {
	t.Helper()
	c := m.client(t)
	defer c.Close()
	for _, s := range subjects {
		raw := []byte(fmt.Sprintf("From: Jane <jane@acme-%d.com>\r\nTo: %s\r\nSubject: %s\r\nMessage-ID: <%s@e2e.test>\r\n"+
			"Date: Mon, 23 Nov 2026 10:00:00 +0000\r\nContent-Type: text/plain; charset=utf-8\r\n\r\nThe export is slow: %s.\r\n",
			len(s), m.user, s, strings.ReplaceAll(s, " ", "-"), s))
		cmd := c.Append("INBOX", int64(len(raw)), nil)
		if _, err := io.Copy(cmd, bytes.NewReader(raw)); err != nil {
			t.Fatal(err)
		}
		if err := cmd.Close(); err != nil {
			t.Fatal(err)
		}
		if _, err := cmd.Wait(); err != nil {
			t.Fatal(err)
		}
	}
}

// count is the number of messages in a mailbox.
func (m *memIMAP) count(t *testing.T, box string) int {
	t.Helper()
	c := m.client(t)
	defer c.Close()
	data, err := c.Status(box, &imap.StatusOptions{NumMessages: true}).Wait()
	if err != nil {
		t.Fatal(err)
	}
	return int(*data.NumMessages)
}

func (m *memIMAP) seenOverlaps() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]string(nil), m.overlaps...)
}

type watchedSession struct {
	imapserver.Session
	m        *memIMAP
	tag      string
	selected bool
}

func (s *watchedSession) Login(user, pass string) error {
	pass, s.tag, _ = strings.Cut(pass, "#")
	return s.Session.Login(user, pass)
}

func (s *watchedSession) Select(box string, opts *imap.SelectOptions) (*imap.SelectData, error) {
	data, err := s.Session.Select(box, opts)
	if err != nil || box != "INBOX" || s.selected || s.tag == "test" {
		return data, err
	}
	s.selected = true
	s.m.mu.Lock()
	defer s.m.mu.Unlock()
	for tag, n := range s.m.open {
		if tag != s.tag && n > 0 {
			s.m.overlaps = append(s.m.overlaps, fmt.Sprintf("%s selected INBOX while %s had it selected", s.tag, tag))
		}
	}
	s.m.open[s.tag]++
	return data, err
}

func (s *watchedSession) Close() error {
	if s.selected {
		s.selected = false
		s.m.mu.Lock()
		s.m.open[s.tag]--
		s.m.mu.Unlock()
	}
	return s.Session.Close()
}

// Move is passed on explicitly: the embedded interface does not carry imapmemserver's MOVE.
func (s *watchedSession) Move(w *imapserver.MoveWriter, numSet imap.NumSet, dest string) error {
	return s.Session.(interface {
		Move(*imapserver.MoveWriter, imap.NumSet, string) error
	}).Move(w, numSet, dest)
}
