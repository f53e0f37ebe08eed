package email

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"
	"time"

	"github.com/feedbridge/feedbridge/connectors"
)

// Config is one `connectors.email` entry: one mailbox of one IMAP account, bound to a workspace.
type Config struct {
	Name             string            `koanf:"name" required:"yes" doc:"Required, unique within the kind. Names checkpoints, leases and the entry in GET /api/connectors."`
	Workspace        string            `koanf:"workspace" required:"yes" doc:"Required. Id of the workspace that receives the records."`
	Server           string            `koanf:"server" required:"yes" doc:"IMAP server host:port; the port defaults to 993 with tls, 143 otherwise."`
	Security         string            `koanf:"security" default:"tls" doc:"tls, starttls or none (none: loopback only unless allow_insecure)."`
	AllowInsecure    bool              `koanf:"allow_insecure" doc:"Permit security none to a non-loopback server (credentials travel in clear)."`
	Username         string            `koanf:"username" required:"yes" doc:"Login name."`
	Password         connectors.Secret `koanf:"password" required:"with auth password" doc:"Password for auth password; read again at each login."`
	Auth             string            `koanf:"auth" default:"password" doc:"password or xoauth2."`
	OAuth2           OAuth2Config      `koanf:"oauth2" doc:"With auth xoauth2: the refresh-token flow (Gmail, Microsoft 365)."`
	Mailbox          string            `koanf:"mailbox" default:"INBOX" doc:"Mailbox to read."`
	ProcessedMailbox string            `koanf:"processed_mailbox" doc:"Where read messages go; empty: flag \\Seen and leave in place."`
	FailedMailbox    string            `koanf:"failed_mailbox" doc:"Where unparseable messages go; empty: leave them flagged."`
	InternalDomains  []string          `koanf:"internal_domains" doc:"Sender domains of colleagues, who are not customers; only their forwards credit the original sender."`
	AuthservID       string            `koanf:"authserv_id" doc:"Recommended with internal_domains. The authserv-id of the server that receives your mail: a colleague's forward is trusted only when that server's topmost Authentication-Results shows DMARC pass for the colleague's domain or an SPF or DKIM pass aligned with it. Empty: only an explicit failure distrusts a colleague (config check warns)."`
	PollInterval     time.Duration     `koanf:"poll_interval" default:"60s" doc:"Polling period when the server has no IDLE."`
	Idle             bool              `koanf:"idle" default:"true" doc:"Use IMAP IDLE when offered."`
}

// OAuth2Config is the refresh-token flow used with auth xoauth2 (Gmail, Microsoft 365).
type OAuth2Config struct {
	TokenURL     string            `koanf:"token_url" required:"with auth xoauth2" doc:"Token endpoint, https (http only to a loopback address)."`
	ClientID     string            `koanf:"client_id" required:"with auth xoauth2" doc:"OAuth client id."`
	ClientSecret connectors.Secret `koanf:"client_secret" doc:"OAuth client secret."`
	RefreshToken connectors.Secret `koanf:"refresh_token" required:"with auth xoauth2" doc:"Long-lived refresh token."`
}

// Security modes and auth methods.
const (
	SecurityTLS      = "tls"
	SecurityStartTLS = "starttls"
	SecurityNone     = "none"
	AuthPassword     = "password"
	AuthXOAUTH2      = "xoauth2"
)

// spec is a validated Config.
type spec struct {
	Config
}

// checkpointName is the checkpoint that holds this mailbox's UIDVALIDITY and last UID.
func (s *spec) checkpointName() string { return "email:" + s.Name + ":" + s.Mailbox }

// parseConfig validates an entry (all but its name and workspace, which connectors.Entries checks) and
// applies defaults, without any network call.
func parseConfig(c Config) (*spec, error) {
	var errs []error
	bad := func(key, format string, args ...any) {
		errs = append(errs, fmt.Errorf("%s: %s", key, fmt.Sprintf(format, args...)))
	}
	s := &spec{Config: c}
	s.Security = strings.ToLower(s.Security)
	switch s.Security {
	case SecurityTLS, SecurityStartTLS, SecurityNone:
	default:
		bad("security", "must be tls, starttls or none, not %q", c.Security)
	}
	if host, err := serverAddress(s); err != nil {
		bad("server", "%v", err)
	} else if s.Security == SecurityNone && !c.AllowInsecure && !isLoopback(host) {
		bad("security", "none sends the password in clear; allowed only to a loopback server unless allow_insecure is true")
	}
	s.Auth = strings.ToLower(s.Auth)
	if strings.TrimSpace(c.Username) == "" {
		bad("username", "is required")
	}
	switch s.Auth {
	case AuthPassword:
		if c.Password == "" {
			bad("password", "is required with auth password")
		}
	case AuthXOAUTH2:
		errs = append(errs, checkOAuth2(&s.OAuth2)...)
	default:
		bad("auth", "must be password or xoauth2, not %q", c.Auth)
	}
	if strings.TrimSpace(s.Mailbox) == "" {
		bad("mailbox", "must name a mailbox")
	}
	for key, m := range map[string]string{"processed_mailbox": c.ProcessedMailbox, "failed_mailbox": c.FailedMailbox} {
		if m != "" && strings.EqualFold(m, s.Mailbox) {
			bad(key, "must differ from mailbox %q", s.Mailbox)
		}
	}
	if c.PollInterval <= 0 {
		bad("poll_interval", "must be positive")
	}
	return s, errors.Join(errs...)
}

// checkOAuth2 validates the refresh-token settings.
func checkOAuth2(o *OAuth2Config) []error {
	var errs []error
	u, err := url.Parse(o.TokenURL)
	switch {
	case o.TokenURL == "" || err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "":
		errs = append(errs, errors.New("oauth2.token_url: must be an https URL"))
	case u.Scheme == "http" && !isLoopback(u.Hostname()):
		// The client secret and refresh token go in the request body.
		errs = append(errs, errors.New("oauth2.token_url: must be https (http only to a loopback address)"))
	}
	if o.ClientID == "" {
		errs = append(errs, errors.New("oauth2.client_id: is required with auth xoauth2"))
	}
	if o.RefreshToken == "" {
		errs = append(errs, errors.New("oauth2.refresh_token: is required with auth xoauth2"))
	}
	return errs
}

// serverAddress completes s.Server with the default port of its security mode and returns the host.
func serverAddress(s *spec) (string, error) {
	if strings.TrimSpace(s.Server) == "" {
		return "", errors.New("is required (host:port)")
	}
	host, _, err := net.SplitHostPort(s.Server)
	if err != nil {
		port := "143"
		host = strings.Trim(s.Server, "[]")
		if s.Security == SecurityTLS {
			port = "993"
		}
		s.Server = net.JoinHostPort(host, port)
	}
	if host == "" {
		return "", fmt.Errorf("%q has no host", s.Server)
	}
	return host, nil
}

func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
