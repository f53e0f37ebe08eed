package cli

import (
	"strings"
	"testing"
)

func TestMemberCommands(t *testing.T) {
	cfg := newConfig(t, "http:\n  listen: 0.0.0.0:8099\n")
	code, out, errOut := run(t, cfg, "workspace", "create", "--name", "Acme", "--plan", "pro")
	if code != 0 {
		t.Fatalf("workspace create: exit %d: %s", code, errOut)
	}
	ws := strings.TrimSpace(out)

	code, out, errOut = run(t, cfg, "member", "add", "--workspace", ws, "--email", "Ann@Acme.com", "--role", "admin")
	link := strings.TrimSpace(out)
	if code != 0 || !strings.HasPrefix(link, "http://localhost:8099/signin/link?token=") || !strings.Contains(errOut, "24 hours") {
		t.Fatalf("member add: exit %d, %q, %q", code, out, errOut)
	}

	var added []struct {
		ID          string `json:"id"`
		Email       string `json:"email"`
		Role        string `json:"role"`
		PasswordSet bool   `json:"password_set"`
	}
	code, out, _ = run(t, cfg, "member", "list", "--workspace", ws, "--json")
	mustJSON(t, out, &added)
	if code != 0 || len(added) != 1 || added[0].Email != "ann@acme.com" || added[0].Role != "admin" || added[0].PasswordSet {
		t.Fatalf("member list: exit %d, %+v", code, added)
	}
	id := added[0].ID

	public := newConfig(t, "console:\n  public_url: https://feedback.example.com/\n")
	for _, tc := range []struct {
		name     string
		cfg      string
		args     []string
		wantCode int
		wantOut  string // prefix of stdout
		wantErr  string // part of stderr
	}{
		{"a new link", cfg, []string{"member", "link", id}, 0, "http://localhost:8099/signin/link?token=", ""},
		{"the same address again", cfg, []string{"member", "add", "--workspace", ws, "--email", "ann@acme.com"}, 1, "", "already a member"},
		{"an unknown role", cfg, []string{"member", "add", "--workspace", ws, "--email", "bo@acme.com", "--role", "owner"}, 2, "", "--role"},
		{"no email", cfg, []string{"member", "add", "--workspace", ws}, 2, "", "--email"},
		{"a bad address", cfg, []string{"member", "add", "--workspace", ws, "--email", "Bo <bo@acme.com>"}, 1, "", "one bare address"},
		{"an unknown workspace", public, []string{"member", "add", "--workspace", "0123456789abcdef01234567", "--email", "bo@acme.com"}, 1, "", "no such member or workspace"},
		{"link of an unknown member", cfg, []string{"member", "link", "0123456789abcdef01234567"}, 1, "", "no such member"},
		{"a malformed id", cfg, []string{"member", "remove", "nope"}, 2, "", ""},
		{"remove", cfg, []string{"member", "remove", id}, 0, "removed " + id, ""},
		{"remove again", cfg, []string{"member", "remove", id}, 1, "", "no such member"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := run(t, tc.cfg, tc.args...)
			if code != tc.wantCode || !strings.HasPrefix(out, tc.wantOut) || !strings.Contains(errOut, tc.wantErr) {
				t.Fatalf("%v: exit %d, stdout %q, stderr %q", tc.args, code, out, errOut)
			}
		})
	}

	code, out, errOut = run(t, public, "workspace", "create", "--name", "Pub")
	if code != 0 {
		t.Fatal(errOut)
	}
	code, out, errOut = run(t, public, "member", "add", "--workspace", strings.TrimSpace(out), "--email", "pat@acme.com")
	if code != 0 || !strings.HasPrefix(out, "https://feedback.example.com/signin/link?token=") {
		t.Fatalf("a link under console.public_url: exit %d, %q, %q", code, out, errOut)
	}
}
