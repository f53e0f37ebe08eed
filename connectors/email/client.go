package email

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"sync"
	"time"

	"github.com/emersion/go-imap/v2"
	"github.com/emersion/go-imap/v2/imapclient"
	"github.com/emersion/go-sasl"
	"golang.org/x/oauth2"

	"github.com/feedbridge/feedbridge/connectors"
)

const dialTimeout = 30 * time.Second

// dial connects to the server with the entry's security mode and logs in. The connection is closed when ctx
// ends, which also unblocks any command in flight; the returned func logs out and closes it.
func (e *entry) dial(ctx context.Context) (*imapclient.Client, func(), error) {
	opts := &imapclient.Options{
		TLSConfig: e.tlsConfig,
		Dialer:    &net.Dialer{Timeout: dialTimeout},
		UnilateralDataHandler: &imapclient.UnilateralDataHandler{
			Mailbox: func(d *imapclient.UnilateralDataMailbox) {
				if d.NumMessages != nil {
					e.notify()
				}
			},
		},
	}
	var (
		c   *imapclient.Client
		err error
	)
	switch e.spec.Security {
	case SecurityTLS:
		c, err = imapclient.DialTLS(e.spec.Server, opts)
	case SecurityStartTLS:
		c, err = imapclient.DialStartTLS(e.spec.Server, opts)
	default:
		c, err = imapclient.DialInsecure(e.spec.Server, opts)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("email: connect %s: %w", e.spec.Server, err)
	}
	stop := context.AfterFunc(ctx, func() { c.Close() })
	done := func() {
		stop()
		if ctx.Err() == nil {
			logout := c.Logout()
			done := make(chan struct{})
			go func() { logout.Wait(); close(done) }()
			select { // a dead server must not hold up the reconnect
			case <-done:
			case <-time.After(2 * time.Second):
			}
		}
		c.Close()
	}
	if err := e.login(ctx, c); err != nil {
		stop()
		c.Close()
		return nil, nil, err
	}
	return c, done, nil
}

// login authenticates with PLAIN when offered (it carries UTF-8 passwords), LOGIN otherwise, or XOAUTH2.
func (e *entry) login(ctx context.Context, c *imapclient.Client) error {
	if err := c.WaitGreeting(); err != nil {
		return fmt.Errorf("email: greeting from %s: %w", e.spec.Server, err)
	}
	user := e.spec.Username
	var err error
	password := ""
	if e.spec.Auth != AuthXOAUTH2 {
		// Read at each login, so a rotated password file is used by the next reconnect.
		if password, err = e.spec.Password.Value(); err != nil {
			return fmt.Errorf("email: password: %w", err)
		}
	}
	switch {
	case e.spec.Auth == AuthXOAUTH2:
		var tok *oauth2.Token
		tok, err = e.tokenSource(ctx).Token()
		if err != nil {
			return fmt.Errorf("email: oauth2 token for %s: %w", user, err)
		}
		err = c.Authenticate(&xoauth2Client{user: user, token: tok.AccessToken})
	case c.Caps().Has(imap.AuthCap(sasl.Plain)):
		err = c.Authenticate(sasl.NewPlainClient("", user, password))
	default:
		err = c.Login(user, password).Wait()
	}
	if err != nil {
		return fmt.Errorf("email: log in as %s: %w", user, err)
	}
	return nil
}

// tokenSource reuses each access token until it expires and then refreshes it. It lives as long as the
// entry, so reconnects do not fetch a new token every time.
func (e *entry) tokenSource(ctx context.Context) oauth2.TokenSource {
	if e.tokens == nil {
		// Every refresh keeps this context; its client must give up on a silent endpoint. The token URL is
		// the operator's own configuration, checked when loaded (https, or http to loopback), so it may be a
		// private address, as the IMAP server may.
		client := connectors.HTTPClient(connectors.HTTPOptions{AllowPrivate: true, Timeout: dialTimeout})
		tctx := context.WithValue(context.WithoutCancel(ctx), oauth2.HTTPClient, client)
		e.tokens = oauth2.ReuseTokenSource(nil, &refresher{ctx: tctx, conf: e.spec.OAuth2})
	}
	return e.tokens
}

// refresher runs the refresh-token flow with the client secret and refresh token read at each refresh, so
// that a rotated secret file is used by the next refresh without a restart. A refresh token that the
// server replaces in its answer is used from then on, until the configured one changes.
type refresher struct {
	ctx  context.Context
	conf OAuth2Config

	mu         sync.Mutex
	configured string // the refresh token last read from the configuration
	current    string // the refresh token to send: configured, or the server's replacement
}

func (r *refresher) Token() (*oauth2.Token, error) {
	secret, err := r.conf.ClientSecret.Value()
	if err != nil {
		return nil, fmt.Errorf("oauth2.client_secret: %w", err)
	}
	refresh, err := r.conf.RefreshToken.Value()
	if err != nil {
		return nil, fmt.Errorf("oauth2.refresh_token: %w", err)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if refresh != r.configured {
		r.configured, r.current = refresh, refresh
	}
	cfg := &oauth2.Config{ClientID: r.conf.ClientID, ClientSecret: secret, Endpoint: oauth2.Endpoint{TokenURL: r.conf.TokenURL}}
	tok, err := cfg.TokenSource(r.ctx, &oauth2.Token{RefreshToken: r.current}).Token()
	if err != nil {
		return nil, err
	}
	if tok.RefreshToken != "" {
		r.current = tok.RefreshToken
	}
	return tok, nil
}

// xoauth2Client is the XOAUTH2 SASL mechanism of Gmail and Microsoft 365.
type xoauth2Client struct{ user, token string }

func (x *xoauth2Client) Start() (string, []byte, error) {
	return "XOAUTH2", []byte("user=" + x.user + "\x01auth=Bearer " + x.token + "\x01\x01"), nil
}

// Next receives the server's JSON error when it refuses the token; it names the problem, never the token.
func (x *xoauth2Client) Next(challenge []byte) ([]byte, error) {
	return nil, fmt.Errorf("xoauth2 refused: %s", challenge)
}

// ensureMailbox creates name unless it exists already.
func ensureMailbox(c *imapclient.Client, name string) error {
	if _, err := c.Status(name, &imap.StatusOptions{UIDValidity: true}).Wait(); err == nil {
		return nil
	}
	if err := c.Create(name, nil).Wait(); err != nil {
		var ie *imap.Error
		if errors.As(err, &ie) && ie.Code == imap.ResponseCodeAlreadyExists {
			return nil
		}
		return fmt.Errorf("email: create mailbox %q: %w", name, err)
	}
	return nil
}

var _ sasl.Client = (*xoauth2Client)(nil)

// tlsDefaults is the TLS configuration when the entry has none of its own (tests give one trusting their CA).
func tlsDefaults() *tls.Config { return &tls.Config{MinVersion: tls.VersionTLS12} }
