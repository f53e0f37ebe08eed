package email

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/emersion/go-imap/v2"
	"github.com/emersion/go-imap/v2/imapserver"
	"github.com/emersion/go-sasl"

	"github.com/feedbridge/feedbridge/connectors"
	"github.com/feedbridge/feedbridge/internal/testcert"
)

func TestWrongPassword(t *testing.T) {
	eachServer(t, func(t *testing.T, tg *imapTarget) {
		fx := newFixture(t)
		const wrong = "not-the-password-7f3a"
		run(t, fx.build(t, fx.entryConfig(tg, map[string]any{"password": wrong})))
		waitFor(t, 20*time.Second, "the login failure to be reported", func() bool { return fx.status(t).State == StateError })
		st := fx.status(t)
		if !strings.Contains(st.LastError, "log in as "+tg.user) {
			t.Errorf("last_error %q does not say the login failed", st.LastError)
		}
		for where, text := range map[string]string{"last_error": st.LastError, "log": fx.logs.String()} {
			if strings.Contains(text, wrong) {
				t.Errorf("the password appears in the %s", where)
			}
		}
	})
}

// TestXOAUTH2 logs in the way Gmail and Microsoft 365 require: an access token from the refresh-token flow
// (the refresh token read from a file), sent with SASL XOAUTH2. The server refuses LOGIN and PLAIN.
func TestXOAUTH2(t *testing.T) {
	var calls atomic.Int32
	tokenSrv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		user, secret, basic := r.BasicAuth()
		if err := r.ParseForm(); err != nil || r.Method != http.MethodPost ||
			r.PostForm.Get("grant_type") != "refresh_token" || r.PostForm.Get("refresh_token") != "refresh-from-file" {
			t.Errorf("token request %s %v", r.Method, r.PostForm)
			http.Error(w, `{"error":"invalid_request"}`, http.StatusBadRequest)
			return
		}
		if !(basic && user == "client-1" && secret == "client-secret-1") &&
			!(r.PostForm.Get("client_id") == "client-1" && r.PostForm.Get("client_secret") == "client-secret-1") {
			http.Error(w, `{"error":"invalid_client"}`, http.StatusUnauthorized)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"access_token": "access-token-9", "token_type": "Bearer", "expires_in": 3600})
	}))
	defer tokenSrv.Close()
	rtFile := filepath.Join(t.TempDir(), "refresh")
	if err := os.WriteFile(rtFile, []byte("refresh-from-file\n"), 0o600); err != nil {
		t.Fatal(err)
	}

	tg := startMemServer(t, memOptions{wrap: func(s imapserver.Session) imapserver.Session {
		return &oauthSession{moveSession: s.(moveSession), user: "feedback@example.com", pass: "s3cret-pass", token: "access-token-9"}
	}})
	fx := newFixture(t)
	if _, err := tg.mem.user.Append("INBOX", bytes.NewReader(simpleMessage(1, "oauth")), &imap.AppendOptions{}); err != nil {
		t.Fatal(err) // straight into the store: this server refuses the helper client's LOGIN
	}
	run(t, fx.build(t, fx.entryConfig(tg, map[string]any{
		"auth": "xoauth2", "password": nil, "mailbox": "INBOX",
		"oauth2": map[string]any{"token_url": tokenSrv.URL, "client_id": "client-1", "client_secret": "client-secret-1", "refresh_token": "file:" + rtFile},
	})))
	waitFor(t, 20*time.Second, "the message", func() bool { return len(fx.records(t)) == 1 })
	if n := calls.Load(); n != 1 {
		t.Errorf("token endpoint called %d times, want 1", n)
	}
	for _, secret := range []string{"access-token-9", "refresh-from-file", "client-secret-1"} {
		if fx.logs.contains(secret) {
			t.Errorf("secret %q appears in the log", secret)
		}
	}
}

// TestXOAUTH2SecretsReadAtRefresh rotates the client secret and refresh token files between two token
// refreshes: the second refresh sends the new values, without a restart. A refresh token the server hands
// back in place of the old one is used until the file changes.
func TestXOAUTH2SecretsReadAtRefresh(t *testing.T) {
	type call struct{ secret, refresh string }
	var (
		mu    sync.Mutex
		calls []call
	)
	tokenSrv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := r.ParseForm(); err != nil {
			t.Error(err)
		}
		c := call{r.PostForm.Get("client_secret"), r.PostForm.Get("refresh_token")}
		if _, secret, ok := r.BasicAuth(); ok {
			c.secret = secret
		}
		mu.Lock()
		calls = append(calls, c)
		n := len(calls)
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		// Expired at once, so that every use refreshes; the second answer replaces the refresh token.
		answer := map[string]any{"access_token": fmt.Sprintf("access-%d", n), "token_type": "Bearer", "expires_in": 1}
		if n == 2 {
			answer["refresh_token"] = "refresh-from-server"
		}
		json.NewEncoder(w).Encode(answer)
	}))
	defer tokenSrv.Close()
	dir := t.TempDir()
	secretFile, refreshFile := filepath.Join(dir, "client-secret"), filepath.Join(dir, "refresh")
	write := func(path, v string) {
		t.Helper()
		if err := os.WriteFile(path, []byte(v+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(secretFile, "secret-1")
	write(refreshFile, "refresh-1")
	s, err := Build([]map[string]any{validEntry(map[string]any{"auth": "xoauth2", "password": nil,
		"oauth2": map[string]any{"token_url": tokenSrv.URL, "client_id": "client-1",
			"client_secret": "file:" + secretFile, "refresh_token": "file:" + refreshFile}})}, connectors.Env{})
	if err != nil {
		t.Fatal(err)
	}
	tokens := s.(*set).entries[0].tokenSource(context.Background())
	use := func(want string) {
		t.Helper()
		tok, err := tokens.Token()
		if err != nil || tok.AccessToken != want {
			t.Fatalf("token %v, %v; want %s", tok, err, want)
		}
	}
	use("access-1")
	write(secretFile, "secret-2")
	write(refreshFile, "refresh-2")
	use("access-2")
	use("access-3")
	write(refreshFile, "refresh-3")
	use("access-4")
	want := []call{{"secret-1", "refresh-1"}, {"secret-2", "refresh-2"}, {"secret-2", "refresh-from-server"}, {"secret-2", "refresh-3"}}
	mu.Lock()
	defer mu.Unlock()
	if !slices.Equal(calls, want) {
		t.Errorf("token endpoint got %+v, want %+v", calls, want)
	}
}

// oauthSession accepts only XOAUTH2 with one access token, as Gmail does for OAuth-only accounts.
type oauthSession struct {
	moveSession
	user, pass, token string
}

func (s *oauthSession) Login(string, string) error       { return imapserver.ErrAuthFailed }
func (s *oauthSession) AuthenticateMechanisms() []string { return []string{"XOAUTH2"} }

func (s *oauthSession) Authenticate(mech string) (sasl.Server, error) {
	if mech != "XOAUTH2" {
		return nil, imapserver.ErrAuthFailed
	}
	return &xoauth2Server{s: s}, nil
}

type xoauth2Server struct {
	s       *oauthSession
	refused bool
}

func (x *xoauth2Server) Next(resp []byte) ([]byte, bool, error) {
	if x.refused {
		return nil, false, imapserver.ErrAuthFailed
	}
	if resp == nil {
		return []byte{}, false, nil
	}
	want := "user=" + x.s.user + "\x01auth=Bearer " + x.s.token + "\x01\x01"
	if !bytes.Equal(resp, []byte(want)) {
		x.refused = true
		return []byte(`{"status":"401","schemes":"bearer"}`), false, nil
	}
	return nil, true, x.s.moveSession.Login(x.s.user, x.s.pass)
}

func TestTLS(t *testing.T) {
	serverTLS, pool := selfSignedTLS(t)
	cases := []struct {
		name     string
		security string
		opts     memOptions
		trusted  bool
	}{
		{"implicit tls", SecurityTLS, memOptions{listen: func() (net.Listener, error) { return tls.Listen("tcp", "127.0.0.1:0", serverTLS) }}, true},
		{"starttls", SecurityStartTLS, memOptions{tls: &imapserver.Options{TLSConfig: serverTLS}}, true},
		{"untrusted certificate", SecurityTLS, memOptions{listen: func() (net.Listener, error) { return tls.Listen("tcp", "127.0.0.1:0", serverTLS) }}, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tg := startMemServer(t, tc.opts)
			fx := newFixture(t)
			user := tg.mem.user
			if _, err := user.Append("INBOX", bytes.NewReader(simpleMessage(1, "tls")), &imap.AppendOptions{}); err != nil {
				t.Fatal(err)
			}
			s := fx.build(t, fx.entryConfig(tg, map[string]any{"security": tc.security, "mailbox": "INBOX"}))
			if tc.trusted {
				s.entries[0].tlsConfig = &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
			}
			run(t, s)
			if !tc.trusted {
				waitFor(t, 20*time.Second, "the certificate to be refused", func() bool {
					return strings.Contains(fx.status(t).LastError, "certificate")
				})
				return
			}
			waitFor(t, 20*time.Second, "the message", func() bool { return len(fx.records(t)) == 1 })
		})
	}
}

// selfSignedTLS makes a certificate for 127.0.0.1 and a pool that trusts it.
func selfSignedTLS(t *testing.T) (*tls.Config, *x509.CertPool) {
	return testcert.Loopback(t, "imap.test")
}
