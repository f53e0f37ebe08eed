package cli

import (
	"strings"
	"testing"
)

// An email entry without internal_domains is valid, but no forward can be trusted there: config check says so
// and still exits 0; with internal_domains but no authserv_id it warns that forged colleagues are trusted;
// with both it says nothing.
func TestConfigCheckWarnsWithoutInternalDomains(t *testing.T) {
	entry := func(extra string) string {
		return "connectors:\n  email:\n    - name: support-inbox\n      workspace: 6650f3a1c2b4d5e6f7a8b9c0\n" +
			"      server: imap.example.com:993\n      username: feedback@example.com\n      password: secret\n" + extra
	}
	code, out, errOut := run(t, newConfig(t, entry("")), "config", "check")
	if code != 0 {
		t.Fatalf("config check: exit %d, want 0\n%s%s", code, out, errOut)
	}
	if !strings.Contains(out, "warning: connectors.email support-inbox: internal_domains is empty, so forwards cannot be trusted") {
		t.Fatalf("no warning about internal_domains:\n%s", out)
	}
	var doc struct {
		Valid    bool     `json:"valid"`
		Warnings []string `json:"warnings"`
	}
	_, out, _ = run(t, newConfig(t, entry("")), "config", "check", "--json")
	mustJSON(t, out, &doc)
	if !doc.Valid || len(doc.Warnings) != 1 {
		t.Fatalf("config check --json: %+v", doc)
	}
	// With colleagues but no authserv_id, a forged colleague's forward is trusted: config check says so.
	code, out, _ = run(t, newConfig(t, entry("      internal_domains: [example.com]\n")), "config", "check")
	if code != 0 || !strings.Contains(out, "warning: connectors.email support-inbox: authserv_id is not set") ||
		strings.Contains(out, "internal_domains is empty") {
		t.Fatalf("with internal_domains, without authserv_id: exit %d\n%s", code, out)
	}
	code, out, _ = run(t, newConfig(t, entry("      internal_domains: [example.com]\n      authserv_id: mx.example.com\n")), "config", "check")
	if code != 0 || strings.Contains(out, "warning:") {
		t.Fatalf("with internal_domains and authserv_id: exit %d\n%s", code, out)
	}
}
