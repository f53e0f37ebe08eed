package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestImportUndo imports a file, erases one of its customers (a change to her record), and undoes the
// run: the other rows go, hers is named as kept, and undoing again deletes nothing more.
func TestImportUndo(t *testing.T) {
	cfg := newConfig(t, "")
	code, ws, errOut := run(t, cfg, "workspace", "create", "--name", "Acme", "--plan", "pro")
	if code != 0 {
		t.Fatalf("workspace create: %d %s", code, errOut)
	}
	ws = strings.TrimSpace(ws)
	csv := filepath.Join(t.TempDir(), "rows.csv")
	body := "title,email,created_at\nOne,a@acme.com,2025-01-02\nTwo,b@acme.com,2025-01-03\nThree,c@acme.com,2025-01-04\n"
	if err := os.WriteFile(csv, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := run(t, cfg, "import", "csv", "--workspace", ws, csv, "--json")
	if code != 0 {
		t.Fatalf("import: %d %s", code, errOut)
	}
	var imp struct{ ID string }
	mustJSON(t, out, &imp)
	if code, _, errOut := run(t, cfg, "contact", "forget", "--workspace", ws, "--email", "b@acme.com"); code != 0 {
		t.Fatalf("forget: %d %s", code, errOut)
	}
	var undo struct {
		Run     string
		Deleted int
		Kept    []struct{ ID, Reason string }
	}
	code, out, errOut = run(t, cfg, "import", "undo", imp.ID, "--json")
	if code != 0 {
		t.Fatalf("undo: %d %s", code, errOut)
	}
	mustJSON(t, out, &undo)
	if undo.Run != imp.ID || undo.Deleted != 2 || len(undo.Kept) != 1 || !strings.Contains(undo.Kept[0].Reason, "changed since the import") {
		t.Fatalf("undo: %+v", undo)
	}
	cases := []struct {
		name string
		args []string
		code int
		out  string
	}{
		{"again", []string{"import", "undo", imp.ID}, 0, "0 records deleted, 1 kept\nkept " + undo.Kept[0].ID + ": changed since the import"},
		{"unknown run", []string{"import", "undo", "6b02aa68e620474649935e43"}, 1, ""},
		{"not an id", []string{"import", "undo", "nope"}, 2, ""},
		{"no id", []string{"import", "undo"}, 2, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, out, errOut := run(t, cfg, c.args...)
			if code != c.code || !strings.Contains(out, c.out) {
				t.Fatalf("exit %d (want %d), out %q, err %q", code, c.code, out, errOut)
			}
		})
	}
}
