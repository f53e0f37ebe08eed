package notify

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

// slackCall is one chat.postMessage the stand-in received.
type slackCall struct {
	Path, Auth, ContentType string
	Body                    map[string]any
}

// slackStub stands in for Slack's Web API: it records every request and answers from answers in turn
// (the last one repeats); an answer is a status and a body.
type slackStub struct {
	mu      sync.Mutex
	calls   []slackCall
	answers []stubAnswer
	srv     *httptest.Server
}

type stubAnswer struct {
	status     int
	body       string
	retryAfter string
}

func newSlackStub(t *testing.T, answers ...stubAnswer) *slackStub {
	if len(answers) == 0 {
		answers = []stubAnswer{{200, `{"ok":true}`, ""}}
	}
	s := &slackStub{answers: answers}
	s.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		var body map[string]any
		_ = json.Unmarshal(raw, &body)
		s.mu.Lock()
		a := s.answers[min(len(s.calls), len(s.answers)-1)]
		s.calls = append(s.calls, slackCall{Path: r.URL.Path, Auth: r.Header.Get("Authorization"),
			ContentType: r.Header.Get("Content-Type"), Body: body})
		s.mu.Unlock()
		if a.retryAfter != "" {
			w.Header().Set("Retry-After", a.retryAfter)
		}
		w.WriteHeader(a.status)
		io.WriteString(w, a.body)
	}))
	t.Cleanup(s.srv.Close)
	return s
}

func (s *slackStub) Calls() []slackCall {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]slackCall(nil), s.calls...)
}

// sentMail is one message the SMTP stand-in accepted.
type sentMail struct {
	From, To, User string
	TLS            bool
	Data           string
}

// smtpStub is an in-process SMTP server (go-smtp) that takes PLAIN logins of user/password and keeps
// every message; refuse makes it answer RCPT with that error.
type smtpStub struct {
	mu     sync.Mutex
	mails  []sentMail
	refuse error
	addr   string
}

// newSMTPStub serves on loopback: security "tls" wraps the listener in TLS, "starttls" offers STARTTLS,
// "none" offers neither. It returns the stub and the client TLS settings that trust its certificate.
func newSMTPStub(t *testing.T, security, user, password string) (*smtpStub, *tls.Config) {
	serverTLS, pool := testcert.Loopback(t, "mail.test")
	stub := &smtpStub{}
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
	stub.addr = ln.Addr().String()
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return stub, &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
}

func (s *smtpStub) Mails() []sentMail {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]sentMail(nil), s.mails...)
}

type smtpSession struct {
	stub           *smtpStub
	user, password string
	conn           *smtp.Conn
	m              sentMail
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
	s.m.Data, s.m.TLS = string(b), isTLS
	s.stub.mu.Lock()
	s.stub.mails = append(s.stub.mails, s.m)
	s.stub.mu.Unlock()
	return nil
}

func (s *smtpSession) Reset()        { s.m = sentMail{User: s.m.User} }
func (s *smtpSession) Logout() error { return nil }
