// Package notifytest holds the stand-ins that notification tests send to: Slack's Web API (recording each
// chat.postMessage and answering as scripted) and an SMTP server (go-smtp, in process) that keeps every
// message it accepts.
package notifytest

import (
	"crypto/tls"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"

	"github.com/feedbridge/feedbridge/internal/testcert"
)

// SlackCall is one chat.postMessage the stand-in received.
type SlackCall struct {
	Path, Auth, ContentType string
	Body                    map[string]any
}

// Slack stands in for Slack's Web API: it records every request and answers from answers in turn
// (the last one repeats); an answer is a status and a body.
type Slack struct {
	mu      sync.Mutex
	calls   []SlackCall
	answers []Answer
	srv     *httptest.Server
}

// URL is the stand-in's base URL; Slack's Web API base is URL()+"/api/".
func (s *Slack) URL() string { return s.srv.URL }

type Answer struct {
	Status     int
	Body       string
	RetryAfter string
}

func NewSlack(t testing.TB, answers ...Answer) *Slack {
	if len(answers) == 0 {
		answers = []Answer{{200, `{"ok":true}`, ""}}
	}
	s := &Slack{answers: answers}
	s.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		var body map[string]any
		_ = json.Unmarshal(raw, &body)
		s.mu.Lock()
		a := s.answers[min(len(s.calls), len(s.answers)-1)]
		s.calls = append(s.calls, SlackCall{Path: r.URL.Path, Auth: r.Header.Get("Authorization"),
			ContentType: r.Header.Get("Content-Type"), Body: body})
		s.mu.Unlock()
		if a.RetryAfter != "" {
			w.Header().Set("Retry-After", a.RetryAfter)
		}
		w.WriteHeader(a.Status)
		io.WriteString(w, a.Body)
	}))
	t.Cleanup(s.srv.Close)
	return s
}

// Calls are the requests received so far.
func (s *Slack) Calls() []SlackCall {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]SlackCall(nil), s.calls...)
}

// Mail is one message the SMTP stand-in accepted.
type Mail struct {
	From, To, User string
	Helo           string // the name the client greeted with
	TLS            bool
	Data           string
}

// SMTP is an in-process SMTP server (go-smtp) that takes PLAIN logins of user/password and keeps
// every message; refuse makes it answer RCPT with that error.
type SMTP struct {
	mu     sync.Mutex
	mails  []Mail
	refuse error
	// Addr is where the server listens, host:port.
	Addr string
}

// Refuse makes the server answer every RCPT TO with err (nil: accept again).
func (s *SMTP) Refuse(err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.refuse = err
}

// NewSMTP serves on loopback: security "tls" wraps the listener in TLS, "starttls" offers STARTTLS,
// "none" offers neither. It returns the stub and the client TLS settings that trust its certificate.
func NewSMTP(t testing.TB, security, user, password string) (*SMTP, *tls.Config) {
	serverTLS, pool := testcert.Loopback(t, "mail.test")
	stub := &SMTP{}
	srv := smtp.NewServer(smtp.BackendFunc(func(c *smtp.Conn) (smtp.Session, error) {
		return &smtpSession{stub: stub, user: user, password: password, conn: c}, nil
	}))
	srv.Domain = "mail.test"
	srv.ReadTimeout, srv.WriteTimeout = 10*time.Second, 10*time.Second
	srv.AllowInsecureAuth = security == "none"
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	switch security {
	case "tls":
		ln = tls.NewListener(ln, serverTLS)
	case "starttls":
		srv.TLSConfig = serverTLS
	}
	stub.Addr = ln.Addr().String()
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return stub, &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
}

// Mails are the messages accepted so far.
func (s *SMTP) Mails() []Mail {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Mail(nil), s.mails...)
}

type smtpSession struct {
	stub           *SMTP
	user, password string
	conn           *smtp.Conn
	m              Mail
}

func (s *smtpSession) AuthMechanisms() []string { return []string{sasl.Plain} }

func (s *smtpSession) Auth(string) (sasl.Server, error) {
	return sasl.NewPlainServer(func(_, user, password string) error {
		if user != s.user || password != s.password {
			return &smtp.SMTPError{Code: 535, EnhancedCode: smtp.EnhancedCode{5, 7, 8}, Message: "authentication failed"}
		}
		s.m.User = user
		return nil
	}), nil
}

func (s *smtpSession) Mail(from string, _ *smtp.MailOptions) error {
	if s.user != "" && s.m.User == "" {
		return &smtp.SMTPError{Code: 530, EnhancedCode: smtp.EnhancedCode{5, 7, 0}, Message: "authentication required"}
	}
	s.m.From = from
	return nil
}

func (s *smtpSession) Rcpt(to string, _ *smtp.RcptOptions) error {
	s.stub.mu.Lock()
	defer s.stub.mu.Unlock()
	if s.stub.refuse != nil {
		return s.stub.refuse
	}
	s.m.To = to
	return nil
}

func (s *smtpSession) Data(r io.Reader) error {
	b, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	_, isTLS := s.conn.TLSConnectionState()
	s.m.Data, s.m.TLS, s.m.Helo = string(b), isTLS, s.conn.Hostname()
	s.stub.mu.Lock()
	s.stub.mails = append(s.stub.mails, s.m)
	s.stub.mu.Unlock()
	return nil
}

func (s *smtpSession) Reset()        { s.m = Mail{User: s.m.User} }
func (s *smtpSession) Logout() error { return nil }
