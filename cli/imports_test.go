package cli

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/feedbridge/feedbridge/api"
	"github.com/feedbridge/feedbridge/core"
	"github.com/feedbridge/feedbridge/store"
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

// TestImportSummaryNamesUnknownTags: labels that match no workspace tag are left off the records, and the
// summary says which.
func TestImportSummaryNamesUnknownTags(t *testing.T) {
	cfg := newConfig(t, "")
	_, out, _ := run(t, cfg, "workspace", "create", "--name", "Tags")
	ws := strings.TrimSpace(out)
	run(t, cfg, "tag", "add", "--workspace", ws, "Bug")
	file := filepath.Join(t.TempDir(), "tags.csv")
	os.WriteFile(file, []byte("Title,Tags\nOne,\"bug, Onboarding\"\nTwo,onboarding;Pricing\n"), 0o600)
	code, out, errOut := run(t, cfg, "import", "csv", "--workspace", ws, file)
	if code != 0 || !strings.Contains(out, "match no workspace tag, left off the records: Onboarding, Pricing, onboarding") {
		t.Fatalf("exit %d, summary %q, stderr %q", code, out, errOut)
	}
}

func TestProgressLine(t *testing.T) {
	r := core.ImportRun{Rows: 1000, Created: 990, Failed: 10}
	got := progressLine(r, 10*time.Second, 250, 1000)
	if want := "rows 1000  created 990  duplicates 0  failed 10  (100 rows/s)  25%  about 30s left"; got != want {
		t.Fatalf("got  %q\nwant %q", got, want)
	}
	if got := progressLine(r, 10*time.Second, 0, 0); strings.Contains(got, "%") {
		t.Fatalf("no size, yet a share: %q", got)
	}
}

// TestRecordCreate: every type can be created by hand, Feature with its release and Objective with its
// timeframe, and a label on the wrong type is a usage error. A CSV import of Features maps release.
func TestRecordCreate(t *testing.T) {
	cfg := newConfig(t, "")
	_, out, _ := run(t, cfg, "workspace", "create", "--name", "Plans")
	ws := strings.TrimSpace(out)
	var rec struct {
		ID         string `json:"id"`
		RecordType string `json:"record_type"`
		Release    string `json:"release"`
		Timeframe  string `json:"timeframe"`
	}
	code, out, errOut := run(t, cfg, "record", "create", "--workspace", ws, "--type", "feature", "--title", "SSO", "--release", "2027.1", "--json")
	mustJSON(t, out, &rec)
	if code != 0 || rec.RecordType != "Feature" || rec.Release != "2027.1" {
		t.Fatalf("feature: exit %d, %+v, %s", code, rec, errOut)
	}
	code, out, _ = run(t, cfg, "record", "create", "--workspace", ws, "--type", "Objective", "--title", "Grow EU", "--timeframe", "Q3 2027")
	if code != 0 || len(strings.TrimSpace(out)) != 24 {
		t.Fatalf("objective: exit %d, %q", code, out)
	}
	if code, _, _ := run(t, cfg, "record", "create", "--workspace", ws, "--type", "Idea", "--title", "x", "--release", "1"); code != 2 {
		t.Fatalf("release on an idea: exit %d, want 2", code)
	}
	if code, _, _ := run(t, cfg, "record", "create", "--workspace", ws, "--title", "x"); code != 2 {
		t.Fatalf("no --type: exit %d, want 2", code)
	}

	file := filepath.Join(t.TempDir(), "features.csv")
	os.WriteFile(file, []byte("Title,Fix Version\nAudit log,2027.2\n"), 0o600)
	if code, _, errOut := run(t, cfg, "import", "csv", "--workspace", ws, "--record-type", "Feature", file); code != 0 {
		t.Fatalf("feature import: exit %d: %s", code, errOut)
	}
	if code, _, _ := run(t, cfg, "import", "csv", "--workspace", ws, "--map", "release=Fix Version", file); code != 1 {
		t.Fatalf("release mapped on a Feedback import: exit %d, want 1", code)
	}
	st, err := store.Open(context.Background(), "sqlite://"+filepath.Join(filepath.Dir(cfg), "fb.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	recs, err := st.Records(context.Background(), core.ID(ws), core.ListQuery{Type: core.RecordFeature, Limit: 10})
	if err != nil || len(recs) != 2 {
		t.Fatalf("features: %v %+v", err, recs)
	}
	releases := []string{recs[0].Release, recs[1].Release}
	slices.Sort(releases)
	if releases[0] != "2027.1" || releases[1] != "2027.2" {
		t.Fatalf("releases %q", releases)
	}
}
