package cli

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestUnknownWorkspaceIsAnError: every command that takes --workspace refuses one that does not exist,
// instead of printing an empty listing and exiting 0 as it did before the fix (key list, tag list, …).
func TestUnknownWorkspaceIsAnError(t *testing.T) {
	cfg := newConfig(t, "")
	const ghost = "0123456789abcdef01234567"
	for _, args := range [][]string{
		{"key", "list"}, {"tag", "list"}, {"product", "list"}, {"user", "list"}, {"company", "list"},
		{"import", "runs"}, {"insights", "failed"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			code, out, errOut := run(t, cfg, append(args, "--workspace", ghost)...)
			if code != 1 || !strings.Contains(errOut, "workspace "+ghost+" does not exist") || out != "" {
				t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errOut)
			}
		})
	}
	_, out, _ := run(t, cfg, "workspace", "create", "--name", "Real")
	if code, _, errOut := run(t, cfg, "key", "list", "--workspace", strings.TrimSpace(out)); code != 0 {
		t.Fatalf("key list of a real workspace: exit %d %s", code, errOut)
	}
}

// TestJSONErrors: with --json an error is one JSON object on stderr, with the same exit code as without.
// Before the fix it was plain text.
func TestJSONErrors(t *testing.T) {
	cfg := newConfig(t, "")
	cases := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"failure", []string{"key", "list", "--workspace", "0123456789abcdef01234567", "--json"}, 1, "does not exist"},
		{"usage", []string{"--json", "tag", "list", "--workspace", "nope"}, 2, "--workspace"},
		{"unknown flag after --json", []string{"--json", "workspace", "list", "--bogus"}, 2, "bogus"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, out, errOut := run(t, cfg, c.args...)
			var body struct {
				Success  *bool  `json:"success"`
				Error    string `json:"error"`
				ExitCode int    `json:"exit_code"`
			}
			if err := json.Unmarshal([]byte(errOut), &body); err != nil {
				t.Fatalf("stderr is not JSON: %v: %q", err, errOut)
			}
			if code != c.code || body.ExitCode != c.code || body.Success == nil || *body.Success || !strings.Contains(body.Error, c.want) || out != "" {
				t.Fatalf("exit %d, stderr %+v, stdout %q", code, body, out)
			}
		})
	}
}
