package cli

import (
	"github.com/feedbridge/feedbridge/api"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestImportCSV(t *testing.T) {
	cfg := newConfig(t, "")
	_, out, _ := run(t, cfg, "workspace", "create", "--name", "Importer")
	ws := strings.TrimSpace(out)
	dir := t.TempDir()
	file := filepath.Join(dir, "export.csv")
	csv := "Subject;Body;Email\nSlow search;Search takes 10s;jane@acme.com\n;no title here;bob@acme.com\nDark mode;Please;not-an-email\nExport;Need CSV export;ann@globex.com\n"
	os.WriteFile(file, []byte(csv), 0o600)

	var r api.ImportRunView
	code, out, errOut := run(t, cfg, "import", "csv", "--workspace", ws, "--map", "title=Subject", file, "--dry-run", "--json")
	mustJSON(t, out, &r)
	if code != 0 || r.Rows != 4 || r.Failed != 2 {
		t.Fatalf("dry run: exit %d, %+v, %s", code, r, errOut)
	}
	if _, err := os.Stat(filepath.Join(dir, "export.errors.csv")); err == nil {
		t.Fatal("dry run wrote an errors file")
	}

	code, out, errOut = run(t, cfg, "import", "csv", "--workspace", ws, "--map", "title=Subject", file, "--json")
	mustJSON(t, out, &r)
	if code != 0 || r.Status != "succeeded" || r.Created != 2 || r.Failed != 2 || r.Connector != "cli" {
		t.Fatalf("import: exit %d, %+v, %s", code, r, errOut)
	}
	errs, err := os.ReadFile(filepath.Join(dir, "export.errors.csv"))
	if err != nil || !strings.Contains(string(errs), "error") || strings.Count(string(errs), "\n") < 3 {
		t.Fatalf("errors file: %v\n%s", err, errs)
	}

	code, out, _ = run(t, cfg, "import", "csv", "--workspace", ws, "--map", "title=Subject", file, "--json")
	mustJSON(t, out, &r)
	if code != 0 || r.Created != 0 || r.Duplicates != 2 {
		t.Fatalf("re-import created records: exit %d, %+v", code, r)
	}

	code, out, _ = run(t, cfg, "import", "runs", "--workspace", ws, "--json")
	var runs []api.ImportRunView
	mustJSON(t, out, &runs)
	if code != 0 || len(runs) != 2 {
		t.Fatalf("import runs: want the 2 real runs (dry runs are not persisted), got %d: %+v", len(runs), runs)
	}

	if code, _, _ := run(t, cfg, "import", "csv", "--workspace", ws, filepath.Join(dir, "missing.csv")); code != 1 {
		t.Fatalf("missing file: exit %d, want 1", code)
	}
	if code, _, _ := run(t, cfg, "import", "csv", "--workspace", ws, "--map", "nonsense", file); code != 2 {
		t.Fatalf("bad --map: exit %d, want 2", code)
	}
}
