package slack

import (
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/feedbridge/feedbridge/connectors"
)

// TestBlankSigningSecretRefusedAtBuild: an entry whose signing secret is given but empty or blank is
// invalid, so `config check`, the start and a reload refuse it. Before, an empty file passed the check.
func TestBlankSigningSecretRefusedAtBuild(t *testing.T) {
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty")
	if err := os.WriteFile(empty, []byte("\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ name, key, value string }{
		{"empty file", "signing_secret", "file:" + empty},
		{"blank literal", "signing_secret", " \t"},
		{"empty bot token file", "bot_token", "file:" + empty},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := entry("acme", "0123456789abcdef01234567", "good-secret")
			e[tc.key] = tc.value
			_, err := Build([]map[string]any{e}, connectors.Env{})
			if err == nil || !strings.Contains(err.Error(), tc.key) || !errors.Is(err, connectors.ErrBlankSecret) {
				t.Fatalf("Build = %v, want %s refused as blank", err, tc.key)
			}
		})
	}
}

// TestBlankSigningSecretAtRequest: when one entry's secret file goes empty after the start, that entry
// verifies nothing (a request signed with the empty key is refused) and the other entries go on working.
// Before, the empty key let an unsigned request in; an unreadable one made every entry refuse everything.
func TestBlankSigningSecretAtRequest(t *testing.T) {
	h := newHarness(t)
	h.quiet = true
	wsA, wsB := h.workspace("Acme", -1), h.workspace("Globex", -1)
	dir := t.TempDir()
	secretA := filepath.Join(dir, "a")
	if err := os.WriteFile(secretA, []byte("secret-a\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	h.start([]map[string]any{
		entry("acme", wsA, "file:"+secretA, "team_id", "TA"),
		entry("globex", wsB, "secret-b", "team_id", "TB"),
	}, nil)
	h.command("secret-a", "TA", "/feedback", "Works before")

	for name, broken := range map[string]func(){
		"emptied": func() { _ = os.WriteFile(secretA, nil, 0o600) },
		"removed": func() { _ = os.Remove(secretA) },
	} {
		t.Run(name, func(t *testing.T) {
			broken()
			for _, secret := range []string{"", "secret-a"} {
				status, body := h.post("/slack/commands", secret, h.commandForm("TA", "/feedback", "Forged"), nil)
				if status != http.StatusUnauthorized {
					t.Fatalf("signed with %q: status %d: %s", secret, status, body)
				}
			}
			h.command("secret-b", "TB", "/feedback", "Other entry still works")
		})
	}
	if n := h.count(wsA, "Feedback"); n != 1 {
		t.Fatalf("acme has %d records, want 1", n)
	}
	if n := h.count(wsB, "Feedback"); n != 2 {
		t.Fatalf("globex has %d records, want 2", n)
	}
	if !strings.Contains(h.logs.String(), "cannot verify requests") || strings.Contains(h.logs.String(), "secret-a") {
		t.Fatalf("the broken entry is not logged, or its secret is: %s", h.logs.String())
	}
}
