package email

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/feedbridge/feedbridge/connectors"
)

const testWS = "0123456789abcdef01234567"

func validEntry(extra map[string]any) map[string]any {
	e := map[string]any{
		"name": "support-inbox", "workspace": testWS, "server": "imap.example.com:993",
		"username": "feedback@example.com", "password": "pw",
	}
	for k, v := range extra {
		if v == nil {
			delete(e, k)
		} else {
			e[k] = v
		}
	}
	return e
}

func TestBuildValidates(t *testing.T) {
	oauth := map[string]any{"token_url": "https://oauth2.googleapis.com/token", "client_id": "c", "refresh_token": "r"}
	tests := []struct {
		name  string
		entry map[string]any
		errs  []string // substrings of the error; none: valid
	}{
		{"minimal", validEntry(nil), nil},
		{"loopback plaintext", validEntry(map[string]any{"server": "127.0.0.1:1143", "security": "none"}), nil},
		{"localhost plaintext", validEntry(map[string]any{"server": "localhost:143", "security": "NONE"}), nil},
		{"remote plaintext refused", validEntry(map[string]any{"security": "none"}), []string{"security: none sends the password in clear"}},
		{"remote plaintext allowed", validEntry(map[string]any{"security": "none", "allow_insecure": true}), nil},
		{"starttls", validEntry(map[string]any{"security": "starttls", "server": "imap.example.com"}), nil},
		{"bad security", validEntry(map[string]any{"security": "ssl"}), []string{"security: must be tls, starttls or none"}},
		{"missing fields", map[string]any{"name": "x"}, []string{"workspace: must be", "server: is required", "username: is required", "password: is required"}},
		{"bad workspace", validEntry(map[string]any{"workspace": "acme"}), []string{"workspace: must be a workspace id"}},
		{"unknown key", validEntry(map[string]any{"mailboxes": "INBOX"}), []string{"unknown keys: mailboxes"}},
		{"xoauth2", validEntry(map[string]any{"auth": "xoauth2", "password": nil, "oauth2": oauth}), nil},
		{"xoauth2 incomplete", validEntry(map[string]any{"auth": "xoauth2", "oauth2": map[string]any{"token_url": "ftp://x"}}),
			[]string{"oauth2.token_url: must be an https URL", "oauth2.client_id: is required", "oauth2.refresh_token: is required"}},
		{"xoauth2 token_url over http", validEntry(map[string]any{"auth": "xoauth2", "password": nil, "oauth2": map[string]any{
			"token_url": "http://oauth2.example.com/token", "client_id": "c", "refresh_token": "r"}}),
			[]string{"oauth2.token_url: must be https (http only to a loopback address)"}},
		{"xoauth2 token_url over http to loopback", validEntry(map[string]any{"auth": "xoauth2", "password": nil, "oauth2": map[string]any{
			"token_url": "http://127.0.0.1:8999/token", "client_id": "c", "refresh_token": "r"}}), nil},
		{"bad auth", validEntry(map[string]any{"auth": "kerberos"}), []string{"auth: must be password or xoauth2"}},
		{"processed is the mailbox", validEntry(map[string]any{"processed_mailbox": "inbox"}), []string{"processed_mailbox: must differ"}},
		{"negative poll", validEntry(map[string]any{"poll_interval": "-5s"}), []string{"poll_interval: must be positive"}},
		{"bad duration", validEntry(map[string]any{"poll_interval": "often"}), []string{"poll_interval"}},
		{"missing secret file", validEntry(map[string]any{"password": "file:/nonexistent/secret"}), []string{"password: secret"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Build([]map[string]any{tt.entry}, connectors.Env{})
			if len(tt.errs) == 0 {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("no error, want %q", tt.errs)
			}
			for _, want := range tt.errs {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not contain %q", err, want)
				}
			}
			if strings.Contains(err.Error(), "pw") && tt.entry["password"] == "pw" {
				t.Errorf("error %q shows the password", err)
			}
		})
	}
}

func TestConfigDefaults(t *testing.T) {
	dir := t.TempDir()
	secret := filepath.Join(dir, "imap")
	if err := os.WriteFile(secret, []byte("from-file\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	s, err := Build([]map[string]any{validEntry(map[string]any{"server": "imap.example.com", "password": "file:" + secret})}, connectors.Env{})
	if err != nil {
		t.Fatal(err)
	}
	sp := s.(*set).entries[0].spec
	if sp.Server != "imap.example.com:993" || sp.Security != SecurityTLS || sp.Auth != AuthPassword || sp.Mailbox != "INBOX" ||
		sp.PollInterval != time.Minute || !sp.Idle {
		t.Errorf("defaults: %+v", sp.Config)
	}
	// The password stays a file reference and is read at each login.
	if pw, err := sp.Password.Value(); err != nil || pw != "from-file" {
		t.Errorf("password = %q, %v", pw, err)
	}
	if got := sp.checkpointName(); got != "email:support-inbox:INBOX" {
		t.Errorf("checkpoint name %q", got)
	}
}

func TestPosition(t *testing.T) {
	tests := []struct {
		in   string
		want position
		ok   bool
	}{
		{"v1:1700000000:42", position{1700000000, 42}, true},
		{"", position{}, false},
		{"v2:1:2", position{}, false},
		{"v1:x:2", position{}, false},
		{"v1:1:99999999999", position{}, false},
	}
	for _, tt := range tests {
		got, ok := parsePosition(tt.in)
		if got != tt.want || ok != tt.ok {
			t.Errorf("parsePosition(%q) = %v %v, want %v %v", tt.in, got, ok, tt.want, tt.ok)
		}
		if ok && got.String() != tt.in {
			t.Errorf("round trip %q -> %q", tt.in, got.String())
		}
	}
}
