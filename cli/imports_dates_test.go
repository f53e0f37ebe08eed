package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/feedbridge/feedbridge/api"
	"github.com/feedbridge/feedbridge/core"
	"github.com/feedbridge/feedbridge/store"
)

// TestImportCSVDateOrderAndSources: a European export with day-first dates imports with --date-order dmy
// (refused row by row without it), and a source label added under sources.add is kept instead of Other.
// Before the fix every such row failed and Phone became Other.
func TestImportCSVDateOrderAndSources(t *testing.T) {
	cfg := newConfig(t, "sources:\n  add: [Phone]\n")
	_, out, _ := run(t, cfg, "workspace", "create", "--name", "Europe")
	ws := strings.TrimSpace(out)
	file := filepath.Join(t.TempDir(), "excel.csv")
	os.WriteFile(file, []byte("Title;Created;Channel\nCall about invoices;03.11.2026;phone\nChat about login;04.11.2026 09:30;chat\n"), 0o600)
	args := []string{"import", "csv", "--workspace", ws, "--map", "created_at=Created", "--map", "source=Channel", file, "--json"}

	var r api.ImportRunView
	code, out, errOut := run(t, cfg, append(args, "--dry-run")...)
	mustJSON(t, out, &r)
	if code != 0 || r.Failed != 2 {
		t.Fatalf("without --date-order: exit %d, %+v, %s", code, r, errOut)
	}
	if code, _, errOut := run(t, cfg, append(args, "--date-order", "day-first")...); code != 2 || !strings.Contains(errOut, "dmy, mdy or ymd") {
		t.Fatalf("a bad --date-order: exit %d, %s", code, errOut)
	}
	code, out, errOut = run(t, cfg, append(args, "--date-order", "dmy")...)
	mustJSON(t, out, &r)
	if code != 0 || r.Created != 2 || r.Failed != 0 {
		t.Fatalf("with --date-order dmy: exit %d, %+v, %s", code, r, errOut)
	}
	st, err := store.Open(context.Background(), "sqlite://"+filepath.Join(filepath.Dir(cfg), "fb.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	recs, err := st.Records(context.Background(), core.ID(ws), core.ListQuery{Type: core.RecordFeedback, Asc: true, Limit: 10})
	if err != nil || len(recs) != 2 {
		t.Fatalf("records: %d, %v", len(recs), err)
	}
	want := []struct {
		created time.Time
		source  string
	}{
		{time.Date(2026, 11, 3, 0, 0, 0, 0, time.UTC), "Phone"},
		{time.Date(2026, 11, 4, 9, 30, 0, 0, time.UTC), "Other"},
	}
	for i, w := range want {
		if !recs[i].CreatedAt.Equal(w.created) || recs[i].Source != w.source {
			t.Errorf("record %d: created %v source %q, want %v %q", i, recs[i].CreatedAt, recs[i].Source, w.created, w.source)
		}
	}
}
