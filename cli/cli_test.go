package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// run executes the CLI in-process against the given config file and returns exit code and output.
func run(t *testing.T, cfgPath string, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := Main(context.Background(), append([]string{"--config", cfgPath}, args...), strings.NewReader(""), &out, &errOut)
	return code, out.String(), errOut.String()
}

// newConfig writes a config file pointing at a fresh SQLite store.
func newConfig(t *testing.T, extra string) string {
	t.Helper()
	dir := t.TempDir()
	p := filepath.Join(dir, "feedbridge.yaml")
	body := "store:\n  url: sqlite://" + filepath.Join(dir, "fb.db") + "\n" + extra
	if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func mustJSON(t *testing.T, s string, v any) {
	t.Helper()
	if err := json.Unmarshal([]byte(s), v); err != nil {
		t.Fatalf("output is not one JSON document: %v\n%s", err, s)
	}
}

func TestAdminCommands(t *testing.T) {
	cfg := newConfig(t, "")
	code, out, errOut := run(t, cfg, "workspace", "create", "--name", "Acme", "--plan", "pro", "--json")
	if code != 0 {
		t.Fatalf("workspace create: exit %d: %s", code, errOut)
	}
	var ws struct {
		ID        string `json:"id"`
		Name      string `json:"name"`
		Plan      string `json:"plan"`
		IdeaLimit int    `json:"idea_limit"`
	}
	mustJSON(t, out, &ws)
	if len(ws.ID) != 24 || ws.Name != "Acme" || ws.Plan != "pro" || ws.IdeaLimit != 1000 {
		t.Fatalf("workspace create --json = %+v", ws)
	}
	// Without --json the id alone is printed.
	code, out, _ = run(t, cfg, "workspace", "create", "--name", "Other", "--plan", "business", "--idea-limit", "5")
	if code != 0 || len(strings.TrimSpace(out)) != 24 {
		t.Fatalf("workspace create text: exit %d, %q", code, out)
	}

	code, out, errOut = run(t, cfg, "key", "create", "--workspace", ws.ID, "--name", "ci", "--json")
	if code != 0 {
		t.Fatalf("key create: exit %d: %s", code, errOut)
	}
	var key struct{ ID, Key, Workspace string }
	mustJSON(t, out, &key)
	if !strings.HasPrefix(key.Key, "fbk_") || len(key.Key) != 44 || key.Workspace != ws.ID {
		t.Fatalf("key create --json = %+v", key)
	}
	code, out, _ = run(t, cfg, "key", "list", "--workspace", ws.ID, "--json")
	if code != 0 || strings.Contains(out, key.Key) || !strings.Contains(out, key.ID) {
		t.Fatalf("key list leaks the key or misses it: exit %d: %s", code, out)
	}
	if code, _, errOut = run(t, cfg, "key", "revoke", key.ID); code != 0 {
		t.Fatalf("key revoke: %d %s", code, errOut)
	}

	code, out, _ = run(t, cfg, "tag", "add", "--workspace", ws.ID, "Bug", "pricing", "--json")
	var tags []struct{ ID, Label string }
	mustJSON(t, out, &tags)
	if code != 0 || len(tags) != 2 {
		t.Fatalf("tag add: %d %v", code, tags)
	}
	code, out, _ = run(t, cfg, "tag", "list", "--workspace", ws.ID, "--json")
	mustJSON(t, out, &tags)
	if code != 0 || len(tags) != 2 || tags[0].Label != "Bug" || tags[1].Label != "pricing" {
		t.Fatalf("tag list not sorted case-insensitively: %v", tags)
	}
	code, out, _ = run(t, cfg, "product", "add", "--workspace", ws.ID, "Web App", "--json")
	if code != 0 || !strings.Contains(out, `"Web App"`) {
		t.Fatalf("product add: %d %s", code, out)
	}
	code, out, _ = run(t, cfg, "user", "add", "--workspace", ws.ID, "--name", "Ada Lovelace", "--email", "ada@example.com", "--json")
	if code != 0 || !strings.Contains(out, `"label": "Ada Lovelace"`) {
		t.Fatalf("user add: %d %s", code, out)
	}
	code, out, _ = run(t, cfg, "company", "add", "--workspace", ws.ID, "--domain", "acme.co.uk", "--name", "ACME Ltd", "--json")
	if code != 0 || !strings.Contains(out, `"domain": "acme.co.uk"`) || !strings.Contains(out, `"name": "ACME Ltd"`) {
		t.Fatalf("company add: %d %s", code, out)
	}
	code, out, _ = run(t, cfg, "workspace", "update", ws.ID, "--suspend", "--idea-limit", "3", "--json")
	if code != 0 || !strings.Contains(out, `"suspended": true`) || !strings.Contains(out, `"idea_limit": 3`) {
		t.Fatalf("workspace update: %d %s", code, out)
	}
	code, out, _ = run(t, cfg, "workspace", "list", "--json")
	var list []map[string]any
	mustJSON(t, out, &list)
	if code != 0 || len(list) != 2 {
		t.Fatalf("workspace list: %d %v", code, list)
	}
}

func TestExitCodes(t *testing.T) {
	cfg := newConfig(t, "")
	cases := []struct {
		name string
		args []string
		code int
	}{
		{"unknown command", []string{"frobnicate"}, 2},
		{"unknown flag", []string{"workspace", "list", "--bogus"}, 2},
		{"missing required flag", []string{"workspace", "create"}, 2},
		{"missing workspace", []string{"tag", "list"}, 2},
		{"bad workspace id", []string{"tag", "list", "--workspace", "nope"}, 2},
		{"too many args", []string{"key", "revoke", "a", "b"}, 2},
		{"unknown workspace", []string{"key", "create", "--workspace", "0123456789abcdef01234567"}, 1},
		{"retry needs a target", []string{"insights", "retry"}, 2},
		{"version", []string{"version"}, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, _, errOut := run(t, cfg, c.args...)
			if code != c.code {
				t.Fatalf("%v: exit %d, want %d (%s)", c.args, code, c.code, errOut)
			}
			if c.code != 0 && !strings.Contains(errOut, "error:") {
				t.Fatalf("no error on stderr: %q", errOut)
			}
		})
	}
}

func TestConfigShowMasksSecrets(t *testing.T) {
	dir := t.TempDir()
	secretFile := filepath.Join(dir, "openai-key")
	os.WriteFile(secretFile, []byte("sk-very-secret\n"), 0o600)
	cfg := filepath.Join(dir, "c.yaml")
	os.WriteFile(cfg, []byte("store:\n  url: postgres://fb:hunter2@db.example:5432/fb\ninsights:\n  provider: openai\n  openai: {base_url: 'https://llm.example/v1', api_key: 'file:"+secretFile+"', model: m}\n"), 0o600)
	code, out, errOut := run(t, cfg, "config", "show")
	if code != 0 {
		t.Fatalf("config show: %d %s", code, errOut)
	}
	for _, secret := range []string{"hunter2", "sk-very-secret"} {
		if strings.Contains(out, secret) {
			t.Fatalf("config show prints secret %q:\n%s", secret, out)
		}
	}
	if !strings.Contains(out, "***") {
		t.Fatalf("config show does not mask: %s", out)
	}
}

func TestConfigCheck(t *testing.T) {
	good := newConfig(t, "")
	if code, out, errOut := run(t, good, "config", "check"); code != 0 {
		t.Fatalf("valid config rejected: %d %s %s", code, out, errOut)
	}
	bad := newConfig(t, "log: {level: loud, format: xml}\nhttp: {listen: nowhere}\nbogus_key: 1\n"+
		"connectors:\n  slack:\n    - {name: s, workspace: 0123456789abcdef01234567, colour: red, commands: {/x: nothing}}\n")
	code, out, _ := run(t, bad, "config", "check")
	if code != 1 {
		t.Fatalf("invalid config: exit %d, want 1", code)
	}
	// An unknown key stops nothing: every other problem is listed beside it, each on its own line, the
	// Slack entry's all of them.
	for _, want := range []string{`unknown key "bogus_key"`, "feedbridge.yaml line 5", "log.level", "log.format", "http.listen",
		`connectors.slack: s: unknown keys: colour`, `connectors.slack: s: signing_secret: is required`, `connectors.slack: s: commands: /x must be feedback or idea`} {
		if !strings.Contains(out, "problem: ") || !strings.Contains(out, want) {
			t.Errorf("config check does not list %q:\n%s", want, out)
		}
	}

	// A connector bound to a workspace the store does not hold is a problem once the store exists.
	_, wsOut, _ := run(t, good, "workspace", "create", "--name", "Real")
	real := strings.TrimSpace(wsOut)
	withEntries := newConfig(t, "connectors:\n  csv:\n    - {name: real, workspace: "+real+", schedule: '@daily', path: /tmp/x/*.csv, archive_dir: /tmp/y}\n"+
		"    - {name: ghost, workspace: 0123456789abcdef01234567, schedule: '@daily', path: /tmp/x/*.csv, archive_dir: /tmp/y}\n")
	os.WriteFile(withEntries, []byte(strings.Replace(mustRead(t, withEntries), filepath.Join(filepath.Dir(withEntries), "fb.db"), filepath.Join(filepath.Dir(good), "fb.db"), 1)), 0o600)
	code, out, _ = run(t, withEntries, "config", "check")
	if code != 1 || !strings.Contains(out, `connectors.csv "ghost": workspace 0123456789abcdef01234567 does not exist`) || strings.Contains(out, `"real"`) {
		t.Fatalf("workspace check: exit %d\n%s", code, out)
	}

	// A store that cannot be created is a problem, and config check creates nothing.
	file := filepath.Join(t.TempDir(), "a-file")
	os.WriteFile(file, nil, 0o600)
	code, out, _ = run(t, good, "--store.url", "sqlite://"+filepath.Join(file, "data", "fb.db"), "config", "check")
	if code != 1 || !strings.Contains(out, "store.url: ") || !strings.Contains(out, file+" is not a folder") {
		t.Fatalf("uncreatable store: exit %d\n%s", code, out)
	}
	fresh := filepath.Join(t.TempDir(), "new", "fb.db")
	if code, out, _ := run(t, good, "--store.url", "sqlite://"+fresh, "config", "check"); code != 0 {
		t.Fatalf("a store to be created: exit %d\n%s", code, out)
	}
	if _, err := os.Stat(filepath.Dir(fresh)); !os.IsNotExist(err) {
		t.Fatalf("config check created the store's folder: %v", err)
	}
}

func mustRead(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestBackupAndMigrate(t *testing.T) {
	cfg := newConfig(t, "")
	if code, _, errOut := run(t, cfg, "migrate"); code != 0 {
		t.Fatalf("migrate: %d %s", code, errOut)
	}
	_, out, _ := run(t, cfg, "workspace", "create", "--name", "Keep me")
	id := strings.TrimSpace(out)
	backup := filepath.Join(t.TempDir(), "copy.db")
	if code, _, errOut := run(t, cfg, "backup", backup); code != 0 {
		t.Fatalf("backup: %d %s", code, errOut)
	}
	restored := filepath.Join(t.TempDir(), "restored.yaml")
	os.WriteFile(restored, []byte("store:\n  url: sqlite://"+backup+"\n"), 0o600)
	code, out, _ := run(t, restored, "workspace", "list", "--json")
	if code != 0 || !strings.Contains(out, id) {
		t.Fatalf("restored backup lacks the workspace: %d %s", code, out)
	}
}

// The shipped example config, with its secret files provided, passes `config check`.
func TestConfigCheckAcceptsTheExample(t *testing.T) {
	raw, err := os.ReadFile("../deploy/feedbridge.example.yaml")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	body := string(raw)
	for _, name := range regexp.MustCompile(`/run/secrets/[A-Za-z0-9_-]+`).FindAllString(body, -1) {
		local := filepath.Join(dir, filepath.Base(name))
		os.WriteFile(local, []byte("example-secret\n"), 0o600)
		body = strings.ReplaceAll(body, name, local)
	}
	cfg := filepath.Join(dir, "example.yaml")
	os.WriteFile(cfg, []byte(body), 0o600)
	code, out, errOut := run(t, cfg, "config", "check")
	if code != 0 {
		t.Fatalf("config check of the example: exit %d\n%s%s", code, out, errOut)
	}
}
