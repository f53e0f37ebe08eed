package console_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	cdpbrowser "github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	"github.com/feedbridge/feedbridge/connectors/csvimport"
	"github.com/feedbridge/feedbridge/core"
)

// TestBrowserImports takes a messy CSV through the console in Chromium as a person does: upload, the
// preview naming its encoding, delimiter and bad row, a dry run that writes nothing, the import, the
// failed rows' download and the undo; the hostile title it carries shows as text.
func TestBrowserImports(t *testing.T) {
	e := newEnv(t, backends()["sqlite"](t))
	c := startChrome(t, e.srv.URL)
	e.member(e.ws.ID, "ann@acme.com", core.RoleAdmin)
	file := filepath.Join(t.TempDir(), "crm export.csv")
	if err := os.WriteFile(file, []byte(messyCSV), 0o600); err != nil {
		t.Fatal(err)
	}
	c.signIn("ann@acme.com")
	c.do("the imports page", chromedp.Navigate(c.base+"/imports"), chromedp.WaitVisible(button("Upload CSV")), c.shot("imports-1-empty"))
	c.do("upload", chromedp.SetUploadFiles(byLabel("CSV file"), []string{file}), chromedp.Click(button("Upload CSV")),
		chromedp.WaitVisible(`//h1[normalize-space()="Import “crm export.csv”"]`), c.shot("imports-2-preview"))
	if got := c.text(`#encoding`); got != "UTF-8 with byte order mark" {
		t.Errorf("the preview names the encoding %q", got)
	}
	if got := c.text(`#delimiter`); !strings.Contains(got, "semicolon") {
		t.Errorf("the preview names the delimiter %q", got)
	}
	if got := c.text(`//table[contains(@class,"preview")]/tbody/tr[1]/td[2]`); got != "Café menu export" {
		t.Errorf("the Windows-1252 byte reads as %q", got)
	}
	if got := c.text(`//tr[contains(@class,"reason")]`); !strings.Contains(got, "title is required") {
		t.Errorf("the bad row is shown as %q", got)
	}
	if got := c.text(`//table[contains(@class,"preview")]/tbody/tr[4]/td[2]`); got != hostile {
		t.Errorf("the hostile title shows in the preview as %q", got)
	}
	if got := c.text(byLabel("Title")); !strings.Contains(got, "found: Subject") {
		t.Errorf("the title column is shown as %q", got)
	}

	c.do("dry run", chromedp.Click(button("Dry run")), chromedp.WaitVisible(`//h2[normalize-space()="Dry run: nothing was written"]`), c.shot("imports-3-dry-run"))
	if n := e.feedbackCount(e.ws.ID); n != 0 {
		t.Fatalf("the dry run wrote %d records", n)
	}
	if got := c.text(`//table[contains(@class,"failed")]/tbody`); !strings.Contains(got, "title is required") {
		t.Errorf("the dry run's failed rows: %q", got)
	}
	c.do("import", chromedp.Click(button("Import")), chromedp.WaitVisible(`//h1[normalize-space()="Imports"]`),
		chromedp.WaitVisible(`//a[normalize-space()="Failed rows"]`), c.shot("imports-4-runs"))
	if n := e.feedbackCount(e.ws.ID); n != 2 {
		t.Fatalf("the import made %d records, want 2", n)
	}
	saved := c.download("download the failed rows", `//a[normalize-space()="Failed rows"]`)
	if body := string(saved); !strings.Contains(body, "a row without a title") || !strings.Contains(body, "title is required") {
		t.Errorf("the failed rows download holds:\n%s", body)
	}

	// The hostile title, imported, is text on the inbox and on its record page.
	runs, _ := e.svc.ImportRuns(e.ctx, e.ws.ID)
	var evil core.Record
	p, _ := e.svc.List(e.ctx, e.ws.ID, core.ListRequest{RecordType: "Feedback", Search: "onerror"})
	if len(p.Records) == 1 {
		evil = p.Records[0]
	} else {
		t.Fatalf("the hostile row made %d records", len(p.Records))
	}
	c.hostileShownAsText(evil.ID, "csv")

	c.do("undo", chromedp.Navigate(c.base+"/imports"), chromedp.Click(`//a[normalize-space()="Undo"]`),
		chromedp.WaitVisible(button("Undo")), c.shot("imports-5-undo-confirm"), chromedp.Click(button("Undo")),
		chromedp.WaitVisible(`//div[@role="status"]//strong[normalize-space()="Import undone."]`), c.shot("imports-6-undone"))
	if n := e.feedbackCount(e.ws.ID); n != 0 {
		t.Fatalf("after undo %d records remain of run %s", n, runs[0].ID)
	}
	c.do("the imports page in a narrow window", chromedp.EmulateViewport(390, 844), chromedp.Navigate(c.base+"/imports"),
		chromedp.WaitVisible(`//h1[normalize-space()="Imports"]`), c.shot("imports-7-narrow"))
	c.do("a preview in a narrow window", chromedp.Navigate(c.base+"/imports"), chromedp.SetUploadFiles(byLabel("CSV file"), []string{file}),
		chromedp.Click(button("Upload CSV")), chromedp.WaitVisible(`//h2[normalize-space()="First rows"]`), c.shot("imports-7b-preview-narrow"))
}

// download clicks the link sel and returns the file as the browser saved it, with the member's cookie.
func (c *chrome) download(what, sel string) []byte {
	c.t.Helper()
	downloads := c.t.TempDir()
	progress := chromedp.Events(c.ctx, cdpbrowser.DownloadProgress)
	c.do(what, chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := chromedp.Call(ctx, cdpbrowser.SetDownloadBehavior, cdpbrowser.SetDownloadBehaviorParams{
			Behavior: cdpbrowser.SetDownloadBehaviorBehaviorAllowAndName, DownloadPath: downloads, EventsEnabled: ptrTo(true)})
		return err
	}), chromedp.Click(sel))
	for ev, err := range progress {
		if err != nil {
			c.t.Fatalf("%s: %v", what, err)
		}
		if ev.State == cdpbrowser.DownloadProgressStateCompleted {
			saved, err := os.ReadFile(filepath.Join(downloads, ev.GUID))
			if err != nil {
				c.t.Fatalf("%s: %v", what, err)
			}
			return saved
		}
	}
	c.t.Fatalf("%s: no download", what)
	return nil
}

// TestBrowserImportChoices: with scripts off, a person downloads the failed rows of a command line's run,
// and overrides the delimiter and encoding the preview guessed wrong, sees the rows read that way, and
// imports them.
func TestBrowserImportChoices(t *testing.T) {
	e := newEnv(t, backends()["sqlite"](t))
	c := startChrome(t, e.srv.URL)
	e.member(e.ws.ID, "ann@acme.com", core.RoleEditor)
	dir := t.TempDir()
	cliFile := filepath.Join(dir, "nightly.csv")
	if err := os.WriteFile(cliFile, []byte("title,customer_email\nFine,ann@acme.com\n,bob@acme.com\nBad address,bob(at)acme\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if run, err := csvimport.ImportFile(e.ctx, e.svc, e.ws.ID, cliFile, csvimport.Options{}); err != nil || run.Failed != 2 {
		t.Fatalf("command line run: %+v %v", run, err)
	}
	file := filepath.Join(dir, "pipes.csv")
	if err := os.WriteFile(file, []byte(pipeCSV), 0o600); err != nil {
		t.Fatal(err)
	}
	c.signIn("ann@acme.com")
	c.do("scripts off", chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := chromedp.Call(ctx, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: true})
		return err
	}))
	c.do("the imports page", chromedp.Navigate(c.base+"/imports"), chromedp.WaitVisible(button("Upload CSV")), c.shot("imports-9-cli-run"))
	saved := string(c.download("the command line run's failed rows", `//a[@aria-label="Download failed rows of `+cliFile+`"]`))
	if want := "line,title,customer_email,error\r\n3,,bob@acme.com,title is required\r\n4,Bad address,bob(at)acme,invalid customer_email\r\n"; strings.TrimPrefix(saved, "\uFEFF") != want {
		t.Errorf("the command line run's failed rows download as %q, want %q", saved, want)
	}

	c.do("upload", chromedp.SetUploadFiles(byLabel("CSV file"), []string{file}), chromedp.Click(button("Upload CSV")),
		chromedp.WaitVisible(`//h1[normalize-space()="Import “pipes.csv”"]`), c.shot("imports-10-guessed"))
	if got := c.text(`#delimiter`); !strings.Contains(got, "comma") {
		t.Errorf("the guessed delimiter is %q", got)
	}
	if got := c.text(`//p[@role="alert"]`); !strings.Contains(got, "title") {
		t.Errorf("the guessed preview's problem: %q", got)
	}
	c.do("choose", chromedp.SetValue(byLabel("Delimiter"), "bar"), chromedp.SetValue(byLabel("Encoding"), "windows-1252"),
		// The page before the choice has its "First rows" too: wait for what only the new one shows.
		chromedp.Click(button("Update preview")), chromedp.WaitVisible(`//dd[@id="delimiter"][normalize-space()="vertical bar ( | )"]`),
		c.shot("imports-11-chosen"))
	if got := c.text(`#delimiter`); got != "vertical bar ( | )" {
		t.Errorf("the chosen delimiter shows as %q", got)
	}
	if got := c.text(`//table[contains(@class,"preview")]/tbody/tr[1]/td[2]`); got != "CafÃ© menu" {
		t.Errorf("the first title under the choice reads %q", got)
	}
	c.do("import", chromedp.Click(button("Import")), chromedp.WaitVisible(`//h1[normalize-space()="Imports"]`), c.shot("imports-12-imported"))
	if n := e.feedbackCount(e.ws.ID); n != 3 {
		t.Fatalf("%d records after the import, want 1 from the command line and 2 from the file", n)
	}
}

// hostileShownAsText checks that a record whose title is markup shows it as text on the inbox and on its
// page, with no element made of it.
func (c *chrome) hostileShownAsText(id core.ID, channel string) {
	c.t.Helper()
	row := fmt.Sprintf(`//a[@href="/records/%s"]`, id)
	c.do("the inbox with the "+channel+" record", chromedp.Navigate(c.base+"/inbox"), chromedp.WaitVisible(row))
	if got := c.text(row); got != hostile {
		c.t.Errorf("%s: the inbox shows the hostile title as %q", channel, got)
	}
	c.do("the "+channel+" record", chromedp.Navigate(c.base+"/records/"+string(id)), chromedp.WaitVisible(`//h1`))
	if got := c.text(`//h1`); got != hostile {
		c.t.Errorf("%s: the record page's heading is %q", channel, got)
	}
	for _, path := range []string{"/inbox", "/records/" + string(id)} {
		c.do("open "+path, chromedp.Navigate(c.base+path), chromedp.WaitVisible(`//h1`))
		if n := c.eval(`document.querySelectorAll("main img, main [onerror]").length`); n != float64(0) {
			c.t.Errorf("%s: the hostile title became %v elements on %s", channel, n, path)
		}
	}
}

// TestBrowserMembers: an admin adds a member in Settings and sees the one-time link, changes its role and
// removes it; a viewer's hand-made post is refused with 403; a form posted from another site changes
// nothing.
func TestBrowserMembers(t *testing.T) {
	e := newEnv(t, backends()["sqlite"](t))
	c := startChrome(t, e.srv.URL)
	c.expected = func(msg string) bool { return strings.Contains(msg, "403") }
	e.member(e.ws.ID, "ann@acme.com", core.RoleAdmin)
	e.member(e.ws.ID, "vic@acme.com", core.RoleViewer)
	c.signIn("ann@acme.com")
	c.do("settings", chromedp.Navigate(c.base+"/settings"), chromedp.WaitVisible(button("Add member")),
		chromedp.SendKeys(byLabel("Email"), "new@acme.com"), chromedp.SetValue(byLabel("Role"), "viewer"),
		chromedp.Click(button("Add member")), chromedp.WaitVisible(`#new-link`), c.shot("settings-1-member-link"))
	if link := c.text(`#new-link`); !strings.HasPrefix(link, c.base+"/signin/link?token=") {
		t.Errorf("the new member's link is %q", link)
	}
	added, err := e.svc.Members(e.ctx, e.ws.ID)
	if err != nil || len(added) != 3 {
		t.Fatalf("members after Add member: %+v %v", added, err)
	}
	c.do("choose a role", chromedp.SetValue(byLabel("Role of new@acme.com"), "editor"))
	c.submit("change role", `//button[@aria-label="Change role of new@acme.com"]`)
	c.do("the changed role", c.shot("settings-2-members"))
	if m := memberByEmail(t, e, "new@acme.com"); m == nil || m.Role != core.RoleEditor {
		t.Fatalf("after Change role: %+v", m)
	}
	c.submit("remove", `//button[@aria-label="Remove new@acme.com"]`)
	if m := memberByEmail(t, e, "new@acme.com"); m != nil {
		t.Fatal("the member survived Remove")
	}

	// Another site's page posts a form to the console in the signed-in browser.
	evil := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/go.js" {
			w.Header().Set("Content-Type", "text/javascript")
			fmt.Fprint(w, `document.forms[0].submit();`)
			return
		}
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprintf(w, `<!doctype html><title>win a prize</title><form method="post" action="%s/settings/members">
<input name="email" value="mallory@evil.example"><input name="role" value="admin"></form><script src="/go.js"></script>`, e.srv.URL)
	}))
	defer evil.Close()
	c.do("a cross-site form", chromedp.Navigate(evil.URL), chromedp.WaitVisible(`//h1`), c.shot("settings-3-cross-site-refused"))
	if m := memberByEmail(t, e, "mallory@evil.example"); m != nil {
		t.Fatal("a form posted from another site added a member")
	}

	c.signIn("vic@acme.com")
	c.do("a viewer's settings", chromedp.Navigate(c.base+"/settings"), chromedp.WaitVisible(`//h2[normalize-space()="Members"]`), c.shot("settings-4-viewer"))
	// The viewer makes the forms the page does not offer, and posts them.
	for _, post := range []struct{ action, fields string }{
		{"/settings/members", `{email: "sneak@acme.com", role: "admin"}`},
		{"/imports/upload", `{}`},
		{"/settings/keys", `{name: "sneaky"}`},
	} {
		c.do("the settings page", chromedp.Navigate(c.base+"/settings"), chromedp.WaitVisible(`//h1`))
		c.eval(fmt.Sprintf(`(() => { const f = document.createElement("form"); f.method = "post"; f.action = %q;
for (const [k, v] of Object.entries(%s)) { const i = document.createElement("input"); i.name = k; i.value = v; f.append(i); }
document.body.append(f); f.submit(); return true; })()`, post.action, post.fields))
		c.do("a viewer's hand-made post to "+post.action, chromedp.WaitVisible(`//h1[normalize-space()="Forbidden"]`))
	}
	c.do("the refusal", c.shot("settings-5-viewer-refused"))
	if keys, _ := e.svc.Keys(e.ctx, e.ws.ID); len(keys) != 0 {
		t.Fatalf("a viewer's hand-made post created keys %+v", keys)
	}
	if m := memberByEmail(t, e, "sneak@acme.com"); m != nil {
		t.Fatal("a viewer's hand-made post added a member")
	}
	c.do("a viewer's imports", chromedp.Navigate(c.base+"/imports"), chromedp.WaitVisible(`//h1[normalize-space()="Imports"]`), c.shot("imports-8-viewer"))
}

func memberByEmail(t *testing.T, e *env, email string) *core.Member {
	t.Helper()
	ms, err := e.svc.Members(e.ctx, e.ws.ID)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range ms {
		if m.Email == email {
			return &m
		}
	}
	return nil
}

func ptrTo[T any](v T) *T { return &v }
