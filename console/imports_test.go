package console_test

import (
	"bytes"
	"encoding/csv"
	"io"
	"mime/multipart"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/feedbridge/feedbridge/console"
	"github.com/feedbridge/feedbridge/core"
)

// messyCSV is an export as spreadsheets write them: a byte order mark, semicolons, a Windows-1252 byte
// (0xE9, é) among UTF-8, Windows line ends and a row without a title.
var messyCSV = "\xEF\xBB\xBFSubject;Body;Email;Channel\r\n" +
	"Caf\xE9 menu export;We need the menu as PDF;ann@globex.com;Email\r\n" +
	";a row without a title;bob@globex.com;Email\r\n" +
	hostile + ";Hello;cat@initech.com;\r\n"

// upload posts a file as the upload form does.
func (b *browser) upload(name, content string, extra http.Header) response {
	b.e.t.Helper()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	fw, err := mw.CreateFormFile("file", name)
	if err != nil {
		b.e.t.Fatal(err)
	}
	io.WriteString(fw, content)
	mw.Close()
	req, err := http.NewRequest(http.MethodPost, b.e.srv.URL+"/imports/upload", &body)
	if err != nil {
		b.e.t.Fatal(err)
	}
	req.Header.Set("Content-Type", mw.FormDataContentType())
	for k, vs := range extra {
		req.Header[k] = vs
	}
	res, err := b.c.Do(req)
	if err != nil {
		b.e.t.Fatal(err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	return response{status: res.StatusCode, header: res.Header, body: string(raw)}
}

func (e *env) feedbackCount(ws core.ID) int {
	e.t.Helper()
	p, err := e.svc.List(e.ctx, ws, core.ListRequest{RecordType: "Feedback", Limit: "1000"})
	if err != nil {
		e.t.Fatal(err)
	}
	return len(p.Records)
}

var runRow = regexp.MustCompile(`id="run-([0-9a-f]{24})"`)

// TestImportUploadPreviewDryRunImportUndo walks a messy file through every step as an editor and an
// admin, and checks that each step writes exactly what it says.
func TestImportUploadPreviewDryRunImportUndo(t *testing.T) {
	eachStore(t, func(t *testing.T, e *env) {
		_, editor := e.member(e.ws.ID, "ed@acme.com", core.RoleEditor)
		_, admin := e.member(e.ws.ID, "ada@acme.com", core.RoleAdmin)
		_, viewer := e.member(e.ws.ID, "vic@acme.com", core.RoleViewer)

		up := editor.upload("crm export.csv", messyCSV, nil)
		wantStatus(t, "upload", up, http.StatusSeeOther)
		preview := up.header.Get("Location")
		if !strings.HasPrefix(preview, "/imports/upload/") {
			t.Fatalf("upload sends to %q", preview)
		}
		p := editor.get(preview)
		wantStatus(t, "preview", p, http.StatusOK)
		for _, want := range []string{"UTF-8 with byte order mark", "semicolon", "Café menu export", "title is required",
			"found: Subject", "found: Email", "crm export.csv", "&lt;img src=x onerror=alert(1)&gt;"} {
			if !strings.Contains(p.body, want) {
				t.Errorf("the preview lacks %q", want)
			}
		}
		if strings.Contains(p.body, hostile) {
			t.Error("the preview shows the hostile title as markup")
		}
		wantStatus(t, "a viewer's preview", viewer.get(preview), http.StatusForbidden)

		dry := editor.post(preview, url.Values{"action": {"dry-run"}, "record_type": {"Feedback"}})
		wantStatus(t, "dry run", dry, http.StatusOK)
		for _, want := range []string{"Dry run: nothing was written", "<dd>3</dd>", "<dd>2</dd>", "<dd>1</dd>", "title is required"} {
			if !strings.Contains(dry.body, want) {
				t.Errorf("the dry run lacks %q", want)
			}
		}
		if n := e.feedbackCount(e.ws.ID); n != 0 {
			t.Fatalf("the dry run wrote %d records", n)
		}
		runs, _ := e.svc.ImportRuns(e.ctx, e.ws.ID)
		if len(runs) != 0 {
			t.Fatalf("the dry run left runs %+v", runs)
		}

		// A changed mapping is carried in the address, so reload and back keep it.
		moved := editor.post(preview, url.Values{"action": {"preview"}, "record_type": {"Feedback"}, "map.customer_name": {"Channel"}})
		wantStatus(t, "update preview", moved, http.StatusSeeOther)
		if p := editor.get(moved.header.Get("Location")); !strings.Contains(p.body, `<option value="Channel" selected>`) {
			t.Error("the changed mapping is not shown as chosen")
		}

		wantStatus(t, "a viewer's import", viewer.post(preview, url.Values{"action": {"import"}}), http.StatusForbidden)
		imp := editor.post(preview, url.Values{"action": {"import"}, "record_type": {"Feedback"}})
		wantStatus(t, "import", imp, http.StatusSeeOther)
		if n := e.feedbackCount(e.ws.ID); n != 2 {
			t.Fatalf("the import made %d records, want 2", n)
		}
		runs, _ = e.svc.ImportRuns(e.ctx, e.ws.ID)
		if len(runs) != 1 || runs[0].Connector != "console" || runs[0].Created != 2 || runs[0].Failed != 1 || runs[0].File != "crm export.csv" {
			t.Fatalf("runs after the import: %+v", runs)
		}
		run := runs[0]
		wantStatus(t, "the spent upload", editor.get(preview), http.StatusNotFound)

		list := viewer.get("/imports")
		wantStatus(t, "a viewer's run list", list, http.StatusOK)
		if m := runRow.FindStringSubmatch(list.body); m == nil || m[1] != string(run.ID) {
			t.Fatalf("the run list lacks the run:\n%s", list.body)
		}
		if strings.Contains(list.body, "Upload CSV") || strings.Contains(list.body, "/undo") {
			t.Error("a viewer sees the upload or undo controls")
		}
		failed := viewer.get("/imports/runs/" + string(run.ID) + "/failed.csv")
		wantStatus(t, "failed rows", failed, http.StatusOK)
		if ct := failed.header.Get("Content-Type"); !strings.HasPrefix(ct, "text/csv") {
			t.Errorf("failed rows are %q", ct)
		}
		if cd := failed.header.Get("Content-Disposition"); !strings.Contains(cd, "attachment") || !strings.Contains(cd, "crm export.errors.csv") {
			t.Errorf("failed rows download as %q", cd)
		}
		rows, err := csv.NewReader(strings.NewReader(strings.TrimPrefix(failed.body, "\uFEFF"))).ReadAll()
		want := [][]string{{"line", "Subject", "Body", "Email", "Channel", "error"},
			{"3", "", "a row without a title", "bob@globex.com", "Email", "title is required"}}
		if err != nil || !reflect.DeepEqual(rows, want) {
			t.Fatalf("failed rows file: %q (%v)", rows, err)
		}

		// Undo is an admin's: an editor's hand-made post is refused and changes nothing.
		wantStatus(t, "an editor's undo", editor.post("/imports/runs/"+string(run.ID)+"/undo", url.Values{}), http.StatusForbidden)
		wantStatus(t, "a viewer's undo", viewer.post("/imports/runs/"+string(run.ID)+"/undo", url.Values{}), http.StatusForbidden)
		if n := e.feedbackCount(e.ws.ID); n != 2 {
			t.Fatalf("a refused undo left %d records", n)
		}
		wantStatus(t, "undo confirmation", admin.get("/imports/runs/"+string(run.ID)+"/undo"), http.StatusOK)
		undone := admin.post("/imports/runs/"+string(run.ID)+"/undo", url.Values{})
		wantStatus(t, "undo", undone, http.StatusOK)
		if !strings.Contains(undone.body, "2 records deleted") {
			t.Errorf("the undo says:\n%s", undone.body)
		}
		if n := e.feedbackCount(e.ws.ID); n != 0 {
			t.Fatalf("after undo %d records remain", n)
		}
	})
}

// TestImportsStayInTheirWorkspace: another workspace's member cannot open an upload, a run's failed
// rows or its undo, and learns nothing of them.
func TestImportsStayInTheirWorkspace(t *testing.T) {
	e := newEnv(t, backends()["sqlite"](t))
	_, admin := e.member(e.ws.ID, "ada@acme.com", core.RoleAdmin)
	other := e.workspace("Other")
	_, stranger := e.member(other.ID, "eve@other.com", core.RoleAdmin)

	up := admin.upload("a.csv", messyCSV, nil)
	preview := up.header.Get("Location")
	wantStatus(t, "another workspace's preview", stranger.get(preview), http.StatusNotFound)
	wantStatus(t, "another workspace's import", stranger.post(preview, url.Values{"action": {"import"}}), http.StatusNotFound)
	wantStatus(t, "import", admin.post(preview, url.Values{"action": {"import"}}), http.StatusSeeOther)
	runs, _ := e.svc.ImportRuns(e.ctx, e.ws.ID)
	if len(runs) != 1 {
		t.Fatalf("runs: %+v", runs)
	}
	id := string(runs[0].ID)
	wantStatus(t, "another workspace's failed rows", stranger.get("/imports/runs/"+id+"/failed.csv"), http.StatusNotFound)
	wantStatus(t, "another workspace's undo", stranger.post("/imports/runs/"+id+"/undo", url.Values{}), http.StatusNotFound)
	if n := e.feedbackCount(e.ws.ID); n != 2 {
		t.Fatalf("a stranger's undo left %d records", n)
	}
	if strings.Contains(stranger.get("/imports").body, "a.csv") {
		t.Error("another workspace's run list shows the run")
	}
	for _, bad := range []string{"/imports/upload/ZZZ", "/imports/upload/" + strings.Repeat("0", 32)} {
		if res := admin.get(bad); res.status != http.StatusNotFound {
			t.Errorf("%s: %d", bad, res.status)
		}
	}
}

// TestUploadRefusals: a viewer's hand-made upload, a cross-site upload and an empty file write nothing.
func TestUploadRefusals(t *testing.T) {
	e := newEnv(t, backends()["sqlite"](t))
	_, viewer := e.member(e.ws.ID, "vic@acme.com", core.RoleViewer)
	_, editor := e.member(e.ws.ID, "ed@acme.com", core.RoleEditor)
	wantStatus(t, "a viewer's upload", viewer.upload("a.csv", messyCSV, nil), http.StatusForbidden)
	wantStatus(t, "a cross-site upload", editor.upload("a.csv", messyCSV, http.Header{"Sec-Fetch-Site": {"cross-site"}}), http.StatusForbidden)
	wantStatus(t, "an empty file", editor.upload("a.csv", "", nil), http.StatusBadRequest)
	wantStatus(t, "no file name", editor.upload("", messyCSV, nil), http.StatusBadRequest)
	// A file with no title column can still be previewed, so that its title column can be chosen.
	up := editor.upload("odd.csv", "Headline,Text\nHello,World\n", nil)
	wantStatus(t, "upload without a title column", up, http.StatusSeeOther)
	p := editor.get(up.header.Get("Location"))
	if !strings.Contains(p.body, "no title column") || !strings.Contains(p.body, `<option value="Headline">`) {
		t.Errorf("the preview of a file without a title column:\n%s", p.body)
	}
	chosen := editor.get(up.header.Get("Location") + "?map.title=Headline")
	if !strings.Contains(chosen.body, "found: Headline") && !strings.Contains(chosen.body, `<option value="Headline" selected>`) {
		t.Errorf("choosing the title column:\n%s", chosen.body)
	}
	if n := e.feedbackCount(e.ws.ID); n != 0 {
		t.Fatalf("refused uploads wrote %d records", n)
	}
}

// TestUploadLimit: a file over the configured limit is refused whole and leaves nothing behind.
func TestUploadLimit(t *testing.T) {
	dir := t.TempDir()
	e := newEnvWith(t, backends()["sqlite"](t), func(o *console.Options) { o.UploadLimit, o.UploadDir = 1024, dir })
	_, editor := e.member(e.ws.ID, "ed@acme.com", core.RoleEditor)
	big := "title\n" + strings.Repeat("a long enough title line\n", 100)
	res := editor.upload("big.csv", big, nil)
	wantStatus(t, "an upload over the limit", res, http.StatusRequestEntityTooLarge)
	if !strings.Contains(res.body, "1 KB") {
		t.Errorf("the refusal does not name the limit:\n%s", res.body)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, "*", "*")); len(left) != 0 {
		t.Errorf("a refused upload left %v", left)
	}
	wantStatus(t, "an upload under the limit", editor.upload("small.csv", "title\nhello\n", nil), http.StatusSeeOther)
}

// TestPreviewReadsOnlyTheFirstRows: the preview of a 1 GB file answers at once, because it reads the
// header and a few rows and nothing more. The file is sparse, so it costs no disk.
func TestPreviewReadsOnlyTheFirstRows(t *testing.T) {
	dir := t.TempDir()
	e := newEnvWith(t, backends()["sqlite"](t), func(o *console.Options) { o.UploadDir = dir })
	_, editor := e.member(e.ws.ID, "ed@acme.com", core.RoleEditor)
	up := editor.upload("huge.csv", "title,description\n"+strings.Repeat("row,text\n", 20), nil)
	wantStatus(t, "upload", up, http.StatusSeeOther)
	spooled, _ := filepath.Glob(filepath.Join(dir, string(e.ws.ID), "*.csv"))
	if len(spooled) != 1 {
		t.Fatalf("spooled files: %v", spooled)
	}
	if err := os.Truncate(spooled[0], 1<<30); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	p := editor.get(up.header.Get("Location"))
	took := time.Since(start)
	wantStatus(t, "preview of 1 GB", p, http.StatusOK)
	if !strings.Contains(p.body, "1 GB") || strings.Count(p.body, "<td>row</td>") != 10 {
		t.Errorf("the preview of the 1 GB file:\n%s", p.body)
	}
	if took > 3*time.Second {
		t.Errorf("the preview of a 1 GB file took %s: it reads more than the first rows", took)
	}
}

// TestUploadStreamsToDisk: a large upload goes to the spool as it arrives; the server allocates a small
// fraction of the file's size, where reading it into memory would allocate all of it.
func TestUploadStreamsToDisk(t *testing.T) {
	e := newEnv(t, backends()["sqlite"](t))
	_, editor := e.member(e.ws.ID, "ed@acme.com", core.RoleEditor)
	const size = 64 << 20
	pr, pw := io.Pipe()
	mw := multipart.NewWriter(pw)
	go func() {
		fw, err := mw.CreateFormFile("file", "big.csv")
		if err == nil {
			_, err = io.WriteString(fw, "title,description\n")
		}
		line := []byte(strings.Repeat("a title,and some text about it\n", 1024))
		for written := 0; err == nil && written < size; written += len(line) {
			_, err = fw.Write(line)
		}
		if err == nil {
			err = mw.Close()
		}
		pw.CloseWithError(err)
	}()
	req, err := http.NewRequest(http.MethodPost, e.srv.URL+"/imports/upload", pr)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", mw.FormDataContentType())
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	res, err := editor.c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	runtime.ReadMemStats(&after)
	if res.StatusCode != http.StatusSeeOther {
		t.Fatalf("upload: %d", res.StatusCode)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > size/4 {
		t.Errorf("a %d MiB upload allocated %d MiB", size>>20, alloc>>20)
	}
}

// TestHostileFileName: a file name is outside text like any other, on every page that shows it.
func TestHostileFileName(t *testing.T) {
	e := newEnv(t, backends()["sqlite"](t))
	_, admin := e.member(e.ws.ID, "ada@acme.com", core.RoleAdmin)
	name := `"><img src=x onerror=alert(1)>.csv`
	up := admin.upload(name, "title\n\nhello\n,bad\n", nil)
	wantStatus(t, "upload", up, http.StatusSeeOther)
	preview := up.header.Get("Location")
	pages := []response{admin.get(preview)}
	wantStatus(t, "import", admin.post(preview, url.Values{"action": {"import"}}), http.StatusSeeOther)
	runs, _ := e.svc.ImportRuns(e.ctx, e.ws.ID)
	if len(runs) != 1 || runs[0].File != name {
		t.Fatalf("runs: %+v", runs)
	}
	pages = append(pages, admin.get("/imports"), admin.get("/imports/runs/"+string(runs[0].ID)+"/undo"))
	for i, p := range pages {
		if strings.Contains(p.body, "<img") || !strings.Contains(p.body, "&lt;img src=x onerror=alert(1)&gt;") {
			t.Errorf("page %d shows the file name as markup, or not at all:\n%s", i, p.body)
		}
	}
	failed := admin.get("/imports/runs/" + string(runs[0].ID) + "/failed.csv")
	wantStatus(t, "failed rows", failed, http.StatusOK)
	if cd := failed.header.Get("Content-Disposition"); cd != `attachment; filename="___img src_x onerror_alert_1__.errors.csv"` {
		t.Errorf("the download's name is sent as %q", cd)
	}
}
