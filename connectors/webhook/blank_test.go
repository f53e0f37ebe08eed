package webhook

import (
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/feedbridge/feedbridge/connectors"
)

// TestBlankSecretRefusedAtBuild: a secret or token that is given but empty or blank (an empty file, spaces)
// makes the entry invalid, so `config check`, the start and a reload all refuse it. Before, an empty file
// passed and the entry accepted anything signed with an empty key.
func TestBlankSecretRefusedAtBuild(t *testing.T) {
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty")
	blank := filepath.Join(dir, "blank")
	for p, v := range map[string]string{empty: "", blank: " \t\r\n"} {
		if err := os.WriteFile(p, []byte(v), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name, auth, key, value string
	}{
		{"hmac empty file", "hmac", "secret", "file:" + empty},
		{"hmac blank file", "hmac", "secret", "file:" + blank},
		{"hmac blank literal", "hmac", "secret", "   "},
		{"bearer empty file", "bearer", "token", "file:" + empty},
		{"bearer blank file", "bearer", "token", "file:" + blank},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := plainEntry("hook")
			delete(e, "secret")
			e["workspace"] = "0123456789abcdef01234567"
			e["auth"], e[tc.key] = tc.auth, tc.value
			_, err := Build([]map[string]any{e}, connectors.Env{})
			if err == nil || !strings.Contains(err.Error(), tc.key) || !errors.Is(err, connectors.ErrBlankSecret) {
				t.Fatalf("Build = %v, want an error naming %s as blank", err, tc.key)
			}
		})
	}
}

// TestBlankSecretRefusedAtRequest: a secret file that becomes empty after the start signs nothing: neither a
// request signed with an empty key nor "Bearer" followed by a non-breaking space is let in, and a
// non-breaking space is never taken for padding around a real token. Before, both got 201.
func TestBlankSecretRefusedAtRequest(t *testing.T) {
	h := newHarness(t)
	dir := t.TempDir()
	tokenFile := filepath.Join(dir, "token")
	secretFile := filepath.Join(dir, "secret")
	write := func(p, v string) {
		if err := os.WriteFile(p, []byte(v), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(tokenFile, "tok-1\n")
	write(secretFile, "key-1\n")
	bearer := plainEntry("form")
	delete(bearer, "secret")
	bearer["auth"], bearer["token"] = "bearer", "file:"+tokenFile
	signed := plainEntry("signed")
	signed["secret"] = "file:" + secretFile
	h.start(bearer, signed)
	body := []byte(`{"id": "1", "title": "Dark mode"}`)
	auth := func(v string) http.Header { return http.Header{"Authorization": {v}} }

	h.post("form", body, auth("Bearer \u00a0tok-1")).want(t, 401)
	h.post("form", body, auth("Bearer tok-1\u00a0")).want(t, 401)
	h.post("form", body, auth("Bearer  tok-1 \t")).want(t, 201)

	write(tokenFile, "")
	write(secretFile, " \n")
	for _, tc := range []struct {
		name, hook string
		header     http.Header
	}{
		{"bearer nbsp", "form", auth("Bearer \u00a0")},
		{"bearer empty", "form", auth("Bearer ")},
		{"bearer old token", "form", auth("Bearer tok-1")},
		{"hmac empty key", "signed", hexSig("", body)},
		{"hmac blank key", "signed", hexSig(" ", body)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := h.post(tc.hook, body, tc.header)
			if r.status < 400 {
				t.Fatalf("status %d with a blank secret: %s", r.status, r.body)
			}
		})
	}
	if n := len(h.records()); n != 1 {
		t.Fatalf("%d records, want only the one made before the secrets went blank", n)
	}
}
