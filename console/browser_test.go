package console_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/feedbridge/feedbridge/core"
)

// findChromium returns the browser to drive: FEEDBRIDGE_TEST_CHROMIUM, or the first one on PATH.
func findChromium() string {
	if p := os.Getenv("FEEDBRIDGE_TEST_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// screenshotDir is FEEDBRIDGE_SCREENSHOTS, or a new temporary folder that outlives the test so that a
// person can look at the pages afterwards.
func screenshotDir(t *testing.T) string {
	dir := os.Getenv("FEEDBRIDGE_SCREENSHOTS")
	if dir == "" {
		var err error
		if dir, err = os.MkdirTemp("", "feedbridge-screenshots-"); err != nil {
			t.Fatal(err)
		}
	} else if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// byLabel finds the form control that the label with this text names, as a person reading the form does.
func byLabel(text string) string {
	return fmt.Sprintf(`//*[@id=//label[normalize-space()=%q]/@for]`, text)
}

func button(text string) string { return fmt.Sprintf(`//button[normalize-space()=%q]`, text) }

// TestBrowser signs in through the real pages in headless Chromium, opens the inbox and a record whose
// title is hostile markup, and fails on any dialog, console error or script exception. Each page is
// photographed into the screenshot folder.
func TestBrowser(t *testing.T) {
	bin := findChromium()
	if bin == "" {
		t.Skip("no chromium found (install Debian's chromium, e.g. bash .ci/chromium.sh, or set FEEDBRIDGE_TEST_CHROMIUM)")
	}
	e := newEnv(t, backends()["sqlite"](t))
	csv := e.feedback(e.ws.ID, "Export to CSV please", "We need a CSV export of our monthly reports for the finance team.")
	e.idea(e.ws.ID, "CSV export of reports", "Export any report as a CSV file.")
	e.feedback(e.ws.ID, "Too many emails", "We get an email for every comment.")
	evil := e.feedback(e.ws.ID, hostile, "Hello "+hostile+"\nSecond line.")
	if _, _, err := e.svc.CreateKey(e.ctx, e.ws.ID, "zapier"); err != nil {
		t.Fatal(err)
	}
	m, _, err := e.svc.AddMember(e.ctx, e.ws.ID, "ann@acme.com", core.RoleAdmin)
	if err != nil {
		t.Fatal(err)
	}
	_, link, err := e.svc.NewSignInLink(e.ctx, m.ID)
	if err != nil {
		t.Fatal(err)
	}
	dir := screenshotDir(t)
	t.Logf("screenshots in %s", dir)
	fmt.Println("console screenshots:", dir)

	alloc, cancelAlloc := chromedp.NewExecAllocator(t.Context(), chromedp.ExecPath(bin), chromedp.Headless, chromedp.NoSandbox,
		chromedp.DisableGPU, chromedp.NoFirstRun, chromedp.NoDefaultBrowserCheck, chromedp.UserDataDir(t.TempDir()),
		chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-extensions", true),
		chromedp.Flag("disable-sync", true), chromedp.Flag("disable-dev-shm-usage", true), chromedp.WindowSize(1280, 900))
	defer cancelAlloc()
	ctx, cancel := chromedp.NewContext(alloc)
	defer cancel()
	ctx, cancelTimeout := context.WithTimeout(ctx, 2*time.Minute)
	defer cancelTimeout()

	var (
		mu       sync.Mutex
		problems []string
	)
	report := func(s string) { mu.Lock(); problems = append(problems, s); mu.Unlock() }
	dialogs := make(chan string, 8)
	if err := chromedp.Listen(ctx, func(ev any) {
		if d, ok := ev.(*page.EventJavascriptDialogOpening); ok {
			select {
			case dialogs <- d.Message:
			default:
			}
		}
	}); err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	go func() {
		for msg := range dialogs {
			report("a JavaScript dialog opened: " + msg)
			_, _ = chromedp.Call(ctx, page.HandleJavaScriptDialog, page.HandleJavaScriptDialogParams{Accept: false})
		}
	}()
	messages := chromedp.Console(ctx)
	go func() {
		for msg, err := range messages {
			if err != nil {
				return
			}
			// The one refusal the test provokes: the wrong password's page is answered with 401, which
			// the browser logs as a failed load.
			if msg.Source == "network" && strings.HasSuffix(msg.URL, "/signin") && strings.Contains(msg.Text, "401") {
				continue
			}
			if msg.Type == "error" || msg.IsException() || msg.Type == "assert" {
				report("console: " + msg.String())
			}
		}
	}()

	shot := func(name string) chromedp.Action[chromedp.Void] {
		return chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
			png, err := chromedp.FullScreenshot(100)(ctx, tg)
			if err != nil {
				return err
			}
			return os.WriteFile(filepath.Join(dir, name+".png"), png, 0o644)
		})
	}
	step := func(what string, actions ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		if err := chromedp.Do(ctx, actions...); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	text := func(sel string) string {
		t.Helper()
		s, err := chromedp.Run(ctx, chromedp.Text(sel))
		if err != nil {
			t.Fatalf("text of %s: %v", sel, err)
		}
		return strings.TrimSpace(s)
	}

	base := e.srv.URL
	step("the sign-in link page", chromedp.Navigate(base+"/signin/link?token="+link), chromedp.WaitVisible(byLabel("Password")), shot("1-choose-password"))
	step("the sign-in page", chromedp.Navigate(base+"/signin"), chromedp.WaitVisible(byLabel("Email")), shot("2-signin"))
	step("a wrong password",
		chromedp.SendKeys(byLabel("Email"), "ann@acme.com"), chromedp.SendKeys(byLabel("Password"), "not my password"),
		chromedp.Click(button("Sign in")), chromedp.WaitVisible(`//p[@role="alert"]`), shot("3-signin-failed"))
	if got := text(`//p[@role="alert"]`); got != "The email or password is wrong." {
		t.Errorf("failed sign-in says %q", got)
	}

	// The member chooses a password through the link, then signs in with it by the labelled fields.
	step("choose a password", chromedp.Navigate(base+"/signin/link?token="+link), chromedp.WaitVisible(byLabel("Password")),
		chromedp.SendKeys(byLabel("Password"), password), chromedp.SendKeys(byLabel("Password again"), password),
		chromedp.Click(button("Set password and sign in")), chromedp.WaitVisible(`//h1[normalize-space()="Inbox"]`))
	step("sign out", chromedp.Click(button("Sign out")), chromedp.WaitVisible(byLabel("Email")))
	step("sign in", chromedp.SendKeys(byLabel("Email"), "ann@acme.com"), chromedp.SendKeys(byLabel("Password"), password),
		chromedp.Click(button("Sign in")), chromedp.WaitVisible(`//h1[normalize-space()="Inbox"]`), shot("4-inbox"))

	row := fmt.Sprintf(`//a[@href="/records/%s"]`, evil.ID)
	if got := text(row); got != hostile {
		t.Errorf("the inbox shows the hostile title as %q", got)
	}
	step("open the hostile record", chromedp.Click(row), chromedp.WaitVisible(`#history-h`), shot("5-record"))
	if got := text(`//h1`); got != hostile {
		t.Errorf("the record page's heading is %q", got)
	}
	imgs, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll("main img").length`))
	if err != nil || imgs != 0 {
		t.Errorf("the hostile title became %d image elements (%v)", imgs, err)
	}

	// Triage on the record page: link the suggested idea with one click, edit and save, then delete behind
	// the confirming page.
	step("a record with a suggestion", chromedp.Navigate(base+"/records/"+string(csv.ID)),
		chromedp.WaitVisible(`//button[@aria-label="Link to CSV export of reports"]`), shot("5a-record-triage"))
	step("link the suggestion", chromedp.Click(`//button[@aria-label="Link to CSV export of reports"]`),
		chromedp.WaitVisible(`//button[@aria-label="Unlink CSV export of reports"]`))
	step("edit and save", chromedp.SetValue(byLabel("Title"), "Export reports to CSV"), chromedp.Click(button("Save")),
		chromedp.WaitVisible(`//h1[normalize-space()="Export reports to CSV"]`), shot("5b-record-saved"))
	if got := e.read(e.ws.ID, csv.ID); got.Title != "Export reports to CSV" || len(got.Links) != 1 {
		t.Errorf("after link and save: %q, links %v", got.Title, got.Links)
	}
	step("merge picker", chromedp.Click(`//a[normalize-space()="Merge into…"]`), chromedp.WaitVisible(`//h1[normalize-space()="Merge into…"]`),
		shot("5c-merge-picker"), chromedp.Navigate(base+"/records/"+string(csv.ID)))
	step("ask to delete", chromedp.WaitVisible(`//a[normalize-space()="Delete"]`), chromedp.Click(`//a[normalize-space()="Delete"]`),
		chromedp.WaitVisible(button("Delete")), shot("5d-delete-confirm"))
	step("delete", chromedp.Click(button("Delete")), chromedp.WaitVisible(`//h1[normalize-space()="Inbox"]`))
	if _, err := e.svc.Record(e.ctx, e.ws.ID, csv.ID); err == nil {
		t.Error("the record survived Delete")
	}

	// The inbox by keyboard: j moves to the first row (the newest), x selects it, e archives it.
	step("inbox keys", chromedp.Navigate(base+"/inbox"), chromedp.WaitVisible(button("Archive")),
		chromedp.KeyEvent("j"), chromedp.KeyEvent("x"), shot("5e-inbox-selected"), chromedp.KeyEvent("e"),
		chromedp.WaitVisible(`//h1[normalize-space()="Inbox"]`))
	deadline := time.Now().Add(5 * time.Second)
	for e.read(e.ws.ID, evil.ID).Status != "Archived" && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	if got := e.read(e.ws.ID, evil.ID).Status; got != "Archived" {
		t.Errorf("j, x, e left the newest feedback %s", got)
	}
	step("ideas", chromedp.Navigate(base+"/ideas"), chromedp.WaitVisible(`//h2[normalize-space()="Planned"]`),
		chromedp.SendKeys(byLabel("Title"), "Weekly digest"), chromedp.Click(button("New idea")),
		chromedp.WaitVisible(`//h1[normalize-space()="Weekly digest"]`))
	step("the board", chromedp.Navigate(base+"/ideas"), chromedp.WaitVisible(`//a[normalize-space()="Weekly digest"]`), shot("5f-ideas"))
	step("companies", chromedp.Navigate(base+"/companies"), chromedp.WaitVisible(`//a[normalize-space()="Globex"]`), shot("5g-companies"),
		chromedp.Click(`//a[normalize-space()="Globex"]`), chromedp.WaitVisible(`//h1[normalize-space()="Globex"]`), shot("5h-company"))
	step("settings", chromedp.Navigate(base+"/settings"), chromedp.WaitVisible(button("Create key")),
		chromedp.SendKeys(byLabel("Name"), "reports"), chromedp.Click(button("Create key")),
		chromedp.WaitVisible(`//code[contains(@class,"secret")]`), shot("6-settings-new-key"))
	step("connectors", chromedp.Navigate(base+"/connectors"), chromedp.WaitVisible(`//h1[normalize-space()="Connectors"]`), shot("7-connectors"))
	step("the inbox in a narrow window", chromedp.EmulateViewport(390, 844), chromedp.Navigate(base+"/inbox"),
		chromedp.WaitVisible(`//h1[normalize-space()="Inbox"]`), shot("8-inbox-narrow"))
	step("a record in a narrow window", chromedp.Navigate(base+"/records/"+string(evil.ID)), chromedp.WaitVisible(`//h1`), shot("9-record-narrow"))

	time.Sleep(300 * time.Millisecond) // console events arrive asynchronously
	mu.Lock()
	defer mu.Unlock()
	for _, p := range problems {
		t.Error(p)
	}
}
