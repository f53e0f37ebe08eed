package cli

import (
	"strings"
	"testing"
)

// TestCompanyAddNeverRenamesSilently: adding a company for a domain that has one under another name is
// refused with the name it has; --rename renames it; adding what is there changes nothing. Before the fix
// the second add renamed the company without a word.
func TestCompanyAddNeverRenamesSilently(t *testing.T) {
	cfg := newConfig(t, "")
	_, out, _ := run(t, cfg, "workspace", "create", "--name", "Acme")
	ws := strings.TrimSpace(out)
	add := func(args ...string) (int, string, string) {
		return run(t, cfg, append([]string{"company", "add", "--workspace", ws, "--domain", "acme.com", "--json"}, args...)...)
	}
	steps := []struct {
		name     string
		args     []string
		wantCode int
		want     string
	}{
		{"first add", []string{"--name", "Acme"}, 0, `"name": "Acme"`},
		{"same name again", []string{"--name", "Acme"}, 0, `"name": "Acme"`},
		{"another name", []string{"--name", "Acme Corp"}, 1, `already belongs to the company \"Acme\"`},
		{"renamed on purpose", []string{"--name", "Acme Corp", "--rename"}, 0, `"name": "Acme Corp"`},
	}
	for _, s := range steps {
		code, out, errOut := add(s.args...)
		if code != s.wantCode || !strings.Contains(out+errOut, s.want) {
			t.Fatalf("%s: exit %d, want %d with %q\n%s%s", s.name, code, s.wantCode, s.want, out, errOut)
		}
	}
	_, out, _ = run(t, cfg, "company", "list", "--workspace", ws, "--json")
	if strings.Count(out, `"domain": "acme.com"`) != 1 || !strings.Contains(out, "Acme Corp") {
		t.Fatalf("company list: %s", out)
	}
}
