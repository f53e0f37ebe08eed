package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/feedbridge/feedbridge/core"
	"github.com/feedbridge/feedbridge/store/sqlite"
)

// TestContactForget erases a customer imported from a CSV file, then imports the same file again: the
// rows stay duplicates (their dedup keys were built from her address and are kept as keyed hashes), and
// nothing of her is found.
func TestContactForget(t *testing.T) {
	cfg := newConfig(t, "")
	code, ws, errOut := run(t, cfg, "workspace", "create", "--name", "Acme", "--plan", "pro")
	if code != 0 {
		t.Fatalf("workspace create: %d %s", code, errOut)
	}
	ws = strings.TrimSpace(ws)
	csv := filepath.Join(t.TempDir(), "feedback.csv")
	body := "title,description,email,name\nExport fails,Jane Roe here,jane@acme.com,Jane Roe\nSlow,from bob,bob@acme.com,Bob\n"
	if err := os.WriteFile(csv, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	imp := func() (created, dups int) {
		t.Helper()
		code, out, errOut := run(t, cfg, "import", "csv", "--workspace", ws, csv, "--json")
		if code != 0 {
			t.Fatalf("import: %d %s", code, errOut)
		}
		var run struct{ Created, Duplicates int }
		mustJSON(t, out, &run)
		return run.Created, run.Duplicates
	}
	if c, _ := imp(); c != 2 {
		t.Fatalf("first import created %d", c)
	}
	cases := []struct {
		name string
		args []string
		code int
		out  string
	}{
		{"missing email", []string{"contact", "forget", "--workspace", ws}, 2, ""},
		{"missing workspace", []string{"contact", "forget", "--email", "jane@acme.com"}, 2, ""},
		{"bad email", []string{"contact", "forget", "--workspace", ws, "--email", "jane"}, 1, ""},
		{"erase", []string{"contact", "forget", "--workspace", ws, "--email", "JANE@acme.com", "--json"}, 0, `"records": 1`},
		{"again", []string{"contact", "forget", "--workspace", ws, "--email", "jane@acme.com"}, 0, "erased: 0 records changed, 0 contacts removed"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, out, errOut := run(t, cfg, c.args...)
			if code != c.code || !strings.Contains(out, c.out) {
				t.Fatalf("exit %d (want %d), out %q, err %q", code, c.code, out, errOut)
			}
		})
	}
	if c, d := imp(); c != 0 || d != 2 {
		t.Fatalf("second import: %d created, %d duplicates", c, d)
	}
	st, err := sqlite.Open(t.Context(), filepath.Join(filepath.Dir(cfg), "fb.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	recs, err := st.Records(t.Context(), core.ID(ws), core.ListQuery{Type: core.RecordFeedback, Limit: 10})
	if err != nil || len(recs) != 2 {
		t.Fatalf("records after erasure: %d, %v", len(recs), err)
	}
	out := fmt.Sprintf("%+v", recs)
	if strings.Contains(strings.ToLower(out), "jane") || !strings.Contains(out, "[removed] here") || !strings.Contains(out, "bob@acme.com") {
		t.Fatalf("records after erasure: %s", out)
	}
	if found, err := st.Records(t.Context(), core.ID(ws), core.ListQuery{Type: core.RecordFeedback, Search: "jane", Limit: 10}); err != nil || len(found) != 0 {
		t.Fatalf("search finds %d records, %v", len(found), err)
	}
}
