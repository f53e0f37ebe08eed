package email

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"io"
	"log"
	"net"
	"os"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/emersion/go-imap/v2"
	"github.com/emersion/go-imap/v2/imapclient"
	"github.com/emersion/go-imap/v2/imapserver"
	"github.com/emersion/go-imap/v2/imapserver/imapmemserver"
)

// imapTarget is a real IMAP server the tests run against: go-imap's in-process memory server, or Dovecot when
// FEEDBRIDGE_TEST_IMAP_ADDR is set (see .ci/dovecot.sh). Each test uses mailboxes of its own (prefix), so the
// tests can share one Dovecot account.
type imapTarget struct {
	name, addr, user, pass string
	prefix                 string
	mem                    *memServer // nil for Dovecot
}

// box names a mailbox of this test.
func (tg *imapTarget) box(name string) string { return tg.prefix + name }

// eachServer runs fn against the memory server and, when configured, against Dovecot.
func eachServer(t *testing.T, fn func(t *testing.T, tg *imapTarget)) {
	t.Run("imapmemserver", func(t *testing.T) {
		fn(t, startMemServer(t, memOptions{}))
	})
	addr := os.Getenv("FEEDBRIDGE_TEST_IMAP_ADDR")
	if addr == "" {
		t.Log("Dovecot variant skipped: FEEDBRIDGE_TEST_IMAP_ADDR is not set (.ci/dovecot.sh starts one)")
		return
	}
	t.Run("dovecot", func(t *testing.T) {
		tg := &imapTarget{
			name: "dovecot", addr: addr, prefix: "t" + randomHex(4) + "-",
			user: os.Getenv("FEEDBRIDGE_TEST_IMAP_USER"), pass: os.Getenv("FEEDBRIDGE_TEST_IMAP_PASS"),
		}
		t.Cleanup(func() { tg.removeAll(t) })
		fn(t, tg)
	})
}

// removeAll deletes the target's mailboxes (all under its prefix) from Dovecot, so that runs against a shared
// server leave nothing behind; the memory server goes away with its test.
func (tg *imapTarget) removeAll(t testing.TB) {
	if tg.mem != nil || tg.prefix == "" {
		return
	}
	c, err := imapclient.DialInsecure(tg.addr, nil)
	if err != nil {
		t.Logf("remove mailboxes %s*: %v", tg.prefix, err)
		return
	}
	defer c.Close()
	if err := c.Login(tg.user, tg.pass).Wait(); err != nil {
		t.Logf("remove mailboxes %s*: %v", tg.prefix, err)
		return
	}
	boxes, err := c.List("", tg.prefix+"*", nil).Collect()
	if err != nil {
		t.Logf("remove mailboxes %s*: %v", tg.prefix, err)
		return
	}
	for _, b := range boxes {
		if err := c.Delete(b.Mailbox).Wait(); err != nil {
			t.Logf("remove mailbox %s: %v", b.Mailbox, err)
		}
	}
}

func randomHex(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// memOptions shape the memory server: which capabilities it offers and how sessions behave.
type memOptions struct {
	noMove bool                                        // offer neither MOVE nor IMAP4rev2: exercise COPY + UID EXPUNGE
	wrap   func(imapserver.Session) imapserver.Session // e.g. XOAUTH2 or injected faults
	listen func() (net.Listener, error)                // e.g. a TLS listener
	tls    *imapserver.Options                         // STARTTLS: TLSConfig is taken from here
}

// memServer is an in-process go-imap server whose mailboxes outlive restarts of its listener.
type memServer struct {
	t      testing.TB
	mem    *imapmemserver.Server
	opts   memOptions
	addr   string
	mu     sync.Mutex
	srv    *imapserver.Server
	ln     net.Listener
	user   *imapmemserver.User
	faults faultSwitch
}

func startMemServer(t testing.TB, o memOptions) *imapTarget {
	t.Helper()
	user := imapmemserver.NewUser("feedback@example.com", "s3cret-pass")
	if err := user.Create("INBOX", nil); err != nil {
		t.Fatal(err)
	}
	ms := &memServer{t: t, mem: imapmemserver.New(), opts: o, user: user}
	ms.mem.AddUser(user)
	ms.start()
	t.Cleanup(ms.stop)
	return &imapTarget{name: "imapmemserver", addr: ms.addr, user: "feedback@example.com", pass: "s3cret-pass", mem: ms}
}

// start listens (on the previous address after a restart) and serves.
func (ms *memServer) start() {
	ms.t.Helper()
	caps := imap.CapSet{imap.CapIMAP4rev1: {}, imap.CapUIDPlus: {}, imap.CapMove: {}}
	if ms.opts.noMove {
		delete(caps, imap.CapMove)
	}
	opts := &imapserver.Options{
		NewSession: func(*imapserver.Conn) (imapserver.Session, *imapserver.GreetingData, error) {
			var s imapserver.Session = &faultSession{moveSession: ms.mem.NewSession().(moveSession), faults: &ms.faults}
			if ms.opts.wrap != nil {
				s = ms.opts.wrap(s)
			}
			return s, nil, nil
		},
		Caps:         caps,
		InsecureAuth: ms.opts.tls == nil, // plaintext on loopback; with STARTTLS, login only after it
		Logger:       log.New(io.Discard, "", 0),
	}
	if ms.opts.tls != nil {
		opts.TLSConfig = ms.opts.tls.TLSConfig
	}
	var ln net.Listener
	var err error
	switch {
	case ms.opts.listen != nil && ms.addr == "":
		ln, err = ms.opts.listen()
	case ms.addr == "":
		ln, err = net.Listen("tcp", "127.0.0.1:0")
	default:
		ln, err = listenAgain(ms.addr, ms.opts.listen)
	}
	if err != nil {
		ms.t.Fatal(err)
	}
	ms.mu.Lock()
	ms.addr, ms.ln, ms.srv = ln.Addr().String(), ln, imapserver.New(opts)
	srv := ms.srv
	ms.mu.Unlock()
	go srv.Serve(ln)
}

// listenAgain binds the old address again; right after a close the port can take a moment to free.
func listenAgain(addr string, listen func() (net.Listener, error)) (net.Listener, error) {
	var err error
	for i := 0; i < 50; i++ {
		var ln net.Listener
		if ln, err = net.Listen("tcp", addr); err == nil {
			return ln, nil
		}
		time.Sleep(20 * time.Millisecond)
	}
	return nil, err
}

// stop closes the listener and every connection, as a crashed or restarted server would.
func (ms *memServer) stop() {
	ms.mu.Lock()
	defer ms.mu.Unlock()
	if ms.srv != nil {
		ms.srv.Close()
		ms.srv = nil
	}
}

// moveSession is what imapmemserver's sessions implement: a session with MOVE.
type moveSession interface {
	imapserver.Session
	Move(w *imapserver.MoveWriter, numSet imap.NumSet, dest string) error
}

// faultSwitch makes MOVE and COPY fail while set: a server error after the records were stored.
type faultSwitch struct {
	mu       sync.Mutex
	failMove bool
}

func (f *faultSwitch) set(v bool) { f.mu.Lock(); f.failMove = v; f.mu.Unlock() }
func (f *faultSwitch) on() bool   { f.mu.Lock(); defer f.mu.Unlock(); return f.failMove }

var errInjected = &imap.Error{Type: imap.StatusResponseTypeNo, Code: imap.ResponseCodeServerBug, Text: "injected fault"}

type faultSession struct {
	moveSession
	faults *faultSwitch
}

func (s *faultSession) Move(w *imapserver.MoveWriter, numSet imap.NumSet, dest string) error {
	if s.faults.on() {
		return errInjected
	}
	return s.moveSession.Move(w, numSet, dest)
}

func (s *faultSession) Copy(numSet imap.NumSet, dest string) (*imap.CopyData, error) {
	if s.faults.on() {
		return nil, errInjected
	}
	return s.moveSession.Copy(numSet, dest)
}

// client logs in to the target as the test user; callers close it when done (polling helpers open many).
func (tg *imapTarget) client(t testing.TB) *imapclient.Client {
	t.Helper()
	c, err := imapclient.DialInsecure(tg.addr, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Login(tg.user, tg.pass).Wait(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// create makes mailboxes (an existing one is fine).
func (tg *imapTarget) create(t testing.TB, names ...string) {
	t.Helper()
	c := tg.client(t)
	defer c.Close()
	for _, n := range names {
		if err := ensureMailbox(c, n); err != nil {
			t.Fatal(err)
		}
	}
}

// appendRaw stores messages with APPEND, as a delivery agent would.
func (tg *imapTarget) appendRaw(t testing.TB, mailbox string, raws ...[]byte) {
	t.Helper()
	c := tg.client(t)
	defer c.Close()
	for _, raw := range raws {
		cmd := c.Append(mailbox, int64(len(raw)), nil)
		if _, err := cmd.Write(raw); err != nil {
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

// messages returns the Message-IDs and flags of a mailbox's messages, in UID order.
func (tg *imapTarget) messages(t testing.TB, mailbox string) []boxMessage {
	t.Helper()
	c := tg.client(t)
	defer c.Close()
	if _, err := c.Select(mailbox, &imap.SelectOptions{ReadOnly: true}).Wait(); err != nil {
		var ie *imap.Error
		if errors.As(err, &ie) && ie.Code == imap.ResponseCodeNonExistent {
			return nil
		}
		t.Fatal(err)
	}
	bufs, err := c.Fetch(imap.SeqSet{imap.SeqRange{Start: 1, Stop: 0}}, &imap.FetchOptions{
		UID: true, Flags: true, BodySection: []*imap.FetchItemBodySection{{Peek: true, Specifier: imap.PartSpecifierHeader}},
	}).Collect()
	if err != nil {
		if len(bufs) == 0 {
			return nil // an empty mailbox answers "1:*" with an error on some servers
		}
		t.Fatal(err)
	}
	var out []boxMessage
	for _, b := range bufs {
		var hdr []byte
		for _, sec := range b.BodySection {
			hdr = sec.Bytes
		}
		m := boxMessage{uid: b.UID, flags: b.Flags}
		hdr = append([]byte("\n"), hdr...)
		if i := bytes.Index(bytes.ToLower(hdr), []byte("\nsubject:")); i >= 0 {
			line := hdr[i+9:]
			m.subject = string(bytes.TrimSpace(line[:max(0, bytes.IndexByte(line, '\n'))]))
		}
		out = append(out, m)
	}
	slices.SortFunc(out, func(a, b boxMessage) int { return int(a.uid) - int(b.uid) })
	return out
}

type boxMessage struct {
	uid     imap.UID
	flags   []imap.Flag
	subject string
}

func (m boxMessage) has(f imap.Flag) bool { return slices.Contains(m.flags, f) }
