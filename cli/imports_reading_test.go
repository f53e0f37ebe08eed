package cli

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/feedbridge/feedbridge/api"
	"github.com/feedbridge/feedbridge/core"
	"github.com/feedbridge/feedbridge/store"
)

// misreadExport is a Windows-1252 export split by semicolons that detection reads wrongly on both counts:
// every line splits into as many fields by its commas as by its semicolons, and the tie goes to the comma;
// the only bytes above ASCII are É before a no-break space, which together are valid UTF-8 (U+0260).
const misreadExport = "Subject;Details, as written, unedited;Email\r\n" +
	"PRIORIT\xc9\xa0! Invoice sent twice;Amount 12,50 EUR, charged twice;jane@acme.fr\r\n" +
	"QUALIT\xc9\xa0: search is slow;Takes 10,5 s, every time;bob@acme.fr\r\n"

// TestImportCSVEncodingAndDelimiter: the file above imports right only with --encoding and --delimiter;
// a value the console does not offer either is a usage error naming the accepted ones, and nothing is
// imported.
func TestImportCSVEncodingAndDelimiter(t *testing.T) {
	cfg := newConfig(t, "")
	file := filepath.Join(t.TempDir(), "export.csv")
	if err := os.WriteFile(file, []byte(misreadExport), 0o600); err != nil {
		t.Fatal(err)
	}
	workspace := func(name string) string {
		_, out, _ := run(t, cfg, "workspace", "create", "--name", name)
		return strings.TrimSpace(out)
	}
	titles := func(ws string) []string {
		st, err := store.Open(context.Background(), "sqlite://"+filepath.Join(filepath.Dir(cfg), "fb.db"))
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		recs, err := st.Records(context.Background(), core.ID(ws), core.ListQuery{Type: core.RecordFeedback, Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, r := range recs {
			out = append(out, r.Title)
		}
		slices.Sort(out)
		return out
	}
	importInto := func(ws string, flags ...string) (int, api.ImportRunView, string) {
		t.Helper()
		args := append([]string{"import", "csv", "--workspace", ws, "--map", "title=Subject", "--json", file}, flags...)
		code, out, errOut := run(t, cfg, args...)
		var r api.ImportRunView
		if code != 2 && strings.TrimSpace(out) != "" {
			mustJSON(t, out, &r)
		}
		return code, r, errOut
	}

	guessed := workspace("Guessed")
	if code, r, errOut := importInto(guessed); code == 0 || r.Created != 0 || !strings.Contains(errOut, "Subject") {
		t.Fatalf("detected reading: exit %d, %+v, %s; want the Subject column not found", code, r, errOut)
	}
	if code, r, errOut := importInto(guessed, "--delimiter", "semicolon"); code != 0 || r.Created != 2 {
		t.Fatalf("--delimiter only: exit %d, %+v, %s", code, r, errOut)
	}
	if got := titles(guessed); !strings.Contains(strings.Join(got, "|"), "PRIORIT\u0260!") {
		t.Fatalf("without --encoding the titles read %q; want the bytes taken for UTF-8", got)
	}

	chosen := workspace("Chosen")
	for _, tt := range []struct{ flag, value, want string }{
		{"--encoding", "latin1", `--encoding "latin1": must be one of utf-8, utf-16le, utf-16be, windows-1252`},
		{"--encoding", "UTF-8", `must be one of utf-8, utf-16le, utf-16be, windows-1252`},
		{"--delimiter", ";", `--delimiter must be comma, semicolon, tab or bar, not ";"`},
		{"--delimiter", "pipe", `must be comma, semicolon, tab or bar`},
	} {
		code, _, errOut := run(t, cfg, "import", "csv", "--workspace", chosen, file, tt.flag, tt.value)
		if code != 2 || !strings.Contains(errOut, tt.want) {
			t.Errorf("%s %q: exit %d, %q; want a usage error containing %q", tt.flag, tt.value, code, errOut, tt.want)
		}
	}
	_, out, _ := run(t, cfg, "import", "runs", "--workspace", chosen, "--json")
	var runs []api.ImportRunView
	if mustJSON(t, out, &runs); len(runs) != 0 {
		t.Fatalf("a refused flag left import runs: %+v", runs)
	}

	code, r, errOut := importInto(chosen, "--encoding", "windows-1252", "--delimiter", "semicolon")
	if code != 0 || r.Created != 2 || r.Failed != 0 {
		t.Fatalf("with both flags: exit %d, %+v, %s", code, r, errOut)
	}
	want := []string{"PRIORITÉ\u00a0! Invoice sent twice", "QUALITÉ\u00a0: search is slow"}
	if got := titles(chosen); !slices.Equal(got, want) {
		t.Errorf("titles %q, want %q", got, want)
	}
}
