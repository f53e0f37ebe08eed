package console_test

import (
	"encoding/csv"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/feedbridge/feedbridge/connectors/csvimport"
	"github.com/feedbridge/feedbridge/core"
)

// TestFailedRowsOfEveryRun: the failed rows of runs the console did not start, a command line's and a
// schedule's, download from the run list as a console run's do.
func TestFailedRowsOfEveryRun(t *testing.T) {
	eachStore(t, func(t *testing.T, e *env) {
		_, viewer := e.member(e.ws.ID, "vic@acme.com", core.RoleViewer)
		dir := t.TempDir()
		path := filepath.Join(dir, "nightly export.csv")
		if err := os.WriteFile(path, []byte("title\tcustomer_email\nFine\tann@acme.com\n\tbob@acme.com\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		cli, err := csvimport.ImportFile(e.ctx, e.svc, e.ws.ID, path, csvimport.Options{})
		if err != nil || cli.Failed != 1 {
			t.Fatalf("command line run: %+v, %v", cli, err)
		}
		scheduled, err := csvimport.Import(e.ctx, e.svc, e.ws.ID, strings.NewReader("title,customer_email\nOther,not an address\n"),
			"sftp://files/feedback.csv", csvimport.Options{Connector: "nightly"})
		if err != nil || scheduled.Failed != 1 {
			t.Fatalf("scheduled run: %+v, %v", scheduled, err)
		}
		// A run from before runs kept their failed rows: counted, none kept.
		old := core.ImportRun{ID: core.NewID(), Workspace: e.ws.ID, Connector: "nightly", File: "old.csv",
			Status: core.ImportSucceeded, Rows: csvimport.FailedRowsKept + 1, Failed: csvimport.FailedRowsKept + 1, StartedAt: e.svc.Now()}
		if err := e.svc.FinishImport(e.ctx, old); err != nil {
			t.Fatal(err)
		}

		list := viewer.get("/imports")
		wantStatus(t, "run list", list, http.StatusOK)
		for _, id := range []core.ID{cli.ID, scheduled.ID, old.ID} {
			if !strings.Contains(list.body, `href="/imports/runs/`+string(id)+`/failed.csv"`) {
				t.Errorf("the run list offers no failed rows of run %s", id)
			}
		}
		if !strings.Contains(list.body, "the first 10000") {
			t.Error("the run list does not say that a run with more failed rows than kept offers the first ones")
		}
		for _, tt := range []struct {
			run  core.ImportRun
			name string
			want [][]string
		}{
			{cli, "nightly export.errors.csv", [][]string{{"line", "title", "customer_email", "error"}, {"3", "", "bob@acme.com", "title is required"}}},
			{scheduled, "feedback.errors.csv", [][]string{{"line", "title", "customer_email", "error"}, {"2", "Other", "not an address", "invalid customer_email"}}},
		} {
			res := viewer.get("/imports/runs/" + string(tt.run.ID) + "/failed.csv")
			wantStatus(t, "failed rows of "+tt.run.Connector, res, http.StatusOK)
			if cd := res.header.Get("Content-Disposition"); !strings.Contains(cd, tt.name) {
				t.Errorf("%s: downloads as %q, want %q", tt.run.Connector, cd, tt.name)
			}
			rows, err := csv.NewReader(strings.NewReader(strings.TrimPrefix(res.body, "\uFEFF"))).ReadAll()
			if err != nil || !reflect.DeepEqual(rows, tt.want) {
				t.Errorf("%s: failed rows %q (%v), want %q", tt.run.Connector, rows, err, tt.want)
			}
		}
		none := viewer.get("/imports/runs/" + string(old.ID) + "/failed.csv")
		wantStatus(t, "a run that kept none", none, http.StatusNotFound)
		if !strings.Contains(none.body, "No failed rows are kept for this run.") {
			t.Errorf("a run that kept none says:\n%s", none.body)
		}
	})
}

// pipeCSV is read wrongly by guessing: every line splits in two at its comma as well as at its bar (a tie
// the comma wins), and its bytes are valid UTF-8 although the file was written in Windows-1252.
const pipeCSV = "title|notes, more\r\nCaf\xC3\xA9 menu|x, y\r\nSecond|z, w\r\n"

// TestPreviewChoosesEncodingAndDelimiter: a person overrides the detected encoding and delimiter on the
// preview form, sees the rows read that way, and the dry run and the import read them that way too.
func TestPreviewChoosesEncodingAndDelimiter(t *testing.T) {
	eachStore(t, func(t *testing.T, e *env) {
		_, editor := e.member(e.ws.ID, "ed@acme.com", core.RoleEditor)
		up := editor.upload("pipes.csv", pipeCSV, nil)
		wantStatus(t, "upload", up, http.StatusSeeOther)
		preview := up.header.Get("Location")
		p := editor.get(preview)
		wantStatus(t, "preview", p, http.StatusOK)
		for _, want := range []string{`<label for="read-encoding">Encoding</label>`, `<label for="read-delimiter">Delimiter</label>`,
			"found: comma ( , )", "found: UTF-8", `<option value="title|notes">title|notes</option>`, "no title column"} {
			if !strings.Contains(p.body, want) {
				t.Errorf("the guessed preview lacks %q:\n%s", want, p.body)
			}
		}

		chosen := url.Values{"action": {"preview"}, "record_type": {"Feedback"}, "encoding": {"windows-1252"}, "delimiter": {"bar"}}
		moved := editor.post(preview, chosen)
		wantStatus(t, "update preview", moved, http.StatusSeeOther)
		loc := moved.header.Get("Location")
		if !strings.Contains(loc, "encoding=windows-1252") || !strings.Contains(loc, "delimiter=bar") {
			t.Fatalf("the choice is not in the address: %q", loc)
		}
		p = editor.get(loc)
		wantStatus(t, "chosen preview", p, http.StatusOK)
		for _, want := range []string{`<option value="windows-1252" selected>`, `<option value="bar" selected>`,
			`<dd id="delimiter">vertical bar ( | )</dd>`, `<dd id="encoding">Windows-1252</dd>`,
			"<th scope=\"col\">notes, more</th>", "<td>CafÃ© menu</td>", "<td>x, y</td>"} {
			if !strings.Contains(p.body, want) {
				t.Errorf("the chosen preview lacks %q", want)
			}
		}

		bad := url.Values{"action": {"dry-run"}, "delimiter": {"colon"}}
		wantStatus(t, "a delimiter not offered", editor.post(preview, bad), http.StatusSeeOther)
		if p := editor.get(preview + "?delimiter=colon"); p.status != http.StatusOK || !strings.Contains(p.body, "found: comma") {
			t.Errorf("an address with a delimiter not offered: %d", p.status)
		}

		chosen.Set("action", "dry-run")
		dry := editor.post(preview, chosen)
		wantStatus(t, "dry run", dry, http.StatusOK)
		if !strings.Contains(dry.body, "<div><dt>Would be created</dt><dd>2</dd></div>") {
			t.Errorf("the dry run under the choice:\n%s", dry.body)
		}

		chosen.Set("action", "import")
		crossSite := editor.do(http.MethodPost, preview, chosen, http.Header{"Sec-Fetch-Site": {"cross-site"}})
		wantStatus(t, "a cross-site import", crossSite, http.StatusForbidden)
		if n := e.feedbackCount(e.ws.ID); n != 0 {
			t.Fatalf("a cross-site import wrote %d records", n)
		}
		wantStatus(t, "import", editor.post(preview, chosen), http.StatusSeeOther)
		recs, err := e.svc.List(e.ctx, e.ws.ID, core.ListRequest{RecordType: "Feedback", Limit: "10"})
		if err != nil {
			t.Fatal(err)
		}
		var titles []string
		for _, r := range recs.Records {
			titles = append(titles, r.Title)
		}
		if len(titles) != 2 || !strings.Contains(strings.Join(titles, "\n"), "CafÃ© menu") {
			t.Errorf("imported titles %q, want the file read as Windows-1252 split at bars", titles)
		}
	})
}
