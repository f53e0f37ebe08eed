package console_test

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/feedbridge/feedbridge/connectors/csvimport"
	"github.com/feedbridge/feedbridge/core"
)

// headless starts a fresh headless Chromium for one test and returns its context, or skips the test when
// there is none.
func headless(t *testing.T, width, height int) context.Context {
	t.Helper()
	bin := findChromium()
	if bin == "" {
		t.Skip("no chromium found (install Debian's chromium, e.g. bash .ci/chromium.sh, or set FEEDBRIDGE_TEST_CHROMIUM)")
	}
	alloc, cancelAlloc := chromedp.NewExecAllocator(t.Context(), chromedp.ExecPath(bin), chromedp.Headless, chromedp.NoSandbox,
		chromedp.DisableGPU, chromedp.NoFirstRun, chromedp.NoDefaultBrowserCheck, chromedp.UserDataDir(t.TempDir()),
		chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-extensions", true),
		chromedp.Flag("disable-sync", true), chromedp.Flag("disable-dev-shm-usage", true), chromedp.WindowSize(width, height))
	t.Cleanup(cancelAlloc)
	ctx, cancel := chromedp.NewContext(alloc)
	t.Cleanup(cancel)
	ctx, cancelTimeout := context.WithTimeout(ctx, 4*time.Minute)
	t.Cleanup(cancelTimeout)
	return ctx
}

// axeSource is the axe-core script named by FEEDBRIDGE_TEST_AXE (.ci/axe.sh fetches it from the npm
// registry); the audit skips without it.
func axeSource(t *testing.T) string {
	t.Helper()
	path := os.Getenv("FEEDBRIDGE_TEST_AXE")
	if path == "" {
		t.Skip("no axe-core named (run: eval \"$(bash .ci/axe.sh)\", which sets FEEDBRIDGE_TEST_AXE)")
	}
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read axe-core: %v", err)
	}
	return string(src)
}

// violation is one axe-core finding, trimmed to what a failure message needs.
type violation struct {
	ID     string   `json:"id"`
	Impact string   `json:"impact"`
	Help   string   `json:"help"`
	Nodes  []string `json:"nodes"`
}

// runAxe audits the page against WCAG 2.x A and AA and best practice; the script is evaluated through
// the DevTools protocol, which the page's CSP does not govern, so the page itself is unchanged.
const runAxe = `axe.run(document, {resultTypes: ["violations"]}).then(r => r.violations.map(v => ({
	id: v.id, impact: v.impact || "", help: v.help,
	nodes: v.nodes.slice(0, 5).map(n => n.target.join(" ") + "  " + n.html.slice(0, 160))})))`

// focused describes the element that has focus: whether it shows an outline or a box shadow. Walking a
// page with Tab, as a person without a mouse does, every stop must show where it is.
const focused = `(() => {
	const el = document.activeElement;
	if (!el || el === document.body) { return {el: "", ring: true}; }
	const s = getComputedStyle(el);
	const ring = (s.outlineStyle !== "none" && parseFloat(s.outlineWidth) > 0) || (s.boxShadow && s.boxShadow !== "none");
	return {el: el.outerHTML.slice(0, 120), ring: !!ring};
})()`

// focus is what has keyboard focus and whether it shows it.
type focus struct {
	El   string `json:"el"`
	Ring bool   `json:"ring"`
}

var slugChars = regexp.MustCompile(`[^a-z0-9]+`)

func slug(path string) string {
	s := strings.Trim(slugChars.ReplaceAllString(strings.ToLower(path), "-"), "-")
	if s == "" {
		return "root"
	}
	return s
}

// TestAccessibilityAudit runs axe-core in every page of the console in headless Chromium, signed out and
// signed in as an admin over a workspace with data on every page, and fails on any serious or critical
// violation. It also walks each page by keyboard and fails on a control that takes focus without showing
// it, and photographs each page wide and narrow (a phone's width) into the screenshot folder. Pages are
// the ones the navigation links to (so a new page is audited once it is in the navigation) and the ones
// reached from them: a record, its merge and delete pages, a company, the link picker, an error page.
func TestAccessibilityAudit(t *testing.T) {
	ctx := headless(t, 1280, 900)
	axe := axeSource(t)
	e := newEnv(t, backends()["sqlite"](t))
	ws := e.ws.ID
	fb := e.feedback(ws, "Export to CSV please", "We need a CSV export of our monthly reports for the finance team.")
	idea := e.idea(ws, "CSV export of reports", "Export any report as a CSV file.")
	other := e.feedback(ws, hostile, "Hello "+hostile+"\nSecond line.")
	e.extract(map[core.ID][]string{fb.ID: {"csv export", "report"}, other.ID: {"report"}})
	if _, _, err := e.svc.CreateKey(e.ctx, ws, "zapier"); err != nil {
		t.Fatal(err)
	}
	if err := e.svc.ReportConnector(e.ctx, core.ConnectorStatus{Workspace: ws, Name: "support-inbox", Kind: "email",
		State: "failing", LastError: "connect: connection refused"}); err != nil {
		t.Fatal(err)
	}
	link := e.newcomer(ws, "ann@acme.com", core.RoleAdmin)
	// An upload waiting on its preview, and a run with failed rows on the imports page.
	_, uploader := e.member(ws, "ed@acme.com", core.RoleEditor)
	preview := uploader.upload("pipes.csv", pipeCSV, nil).header.Get("Location")
	if _, err := csvimport.Import(e.ctx, e.svc, ws, strings.NewReader("title\nFine\n\n,\n"), "nightly.csv", csvimport.Options{}); err != nil {
		t.Fatal(err)
	}
	dir := screenshotDir(t)
	base := e.srv.URL

	audit := func(name, path string) {
		t.Helper()
		if err := chromedp.Do(ctx, chromedp.Navigate(base+path), chromedp.WaitReady("main")); err != nil {
			t.Fatalf("open %s: %v", path, err)
		}
		if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](axe+"\n;true")); err != nil {
			t.Fatalf("load axe-core into %s: %v", path, err)
		}
		found, err := chromedp.Run(ctx, chromedp.Evaluate[[]violation](runAxe, chromedp.EvalAwaitPromise))
		if err != nil {
			t.Fatalf("audit %s: %v", path, err)
		}
		for _, v := range found {
			if v.Impact == "serious" || v.Impact == "critical" {
				t.Errorf("%s: %s violation %s (%s):\n  %s", path, v.Impact, v.ID, v.Help, strings.Join(v.Nodes, "\n  "))
			} else {
				t.Logf("%s: %s finding %s (%s)", path, v.Impact, v.ID, v.Help)
			}
		}
		var bare []string
		stops := 0
		for range 40 {
			if err := chromedp.Do(ctx, chromedp.KeyEvent("\t")); err != nil {
				t.Fatalf("tab through %s: %v", path, err)
			}
			f, err := chromedp.Run(ctx, chromedp.Evaluate[focus](focused))
			if err != nil {
				t.Fatalf("focus on %s: %v", path, err)
			}
			if f.El != "" {
				stops++
			}
			if !f.Ring {
				bare = append(bare, f.El)
			}
		}
		if stops == 0 {
			t.Errorf("%s: Tab reaches nothing", path)
		}
		for _, el := range uniq(bare) {
			t.Errorf("%s: focus is not visible on %s", path, el)
		}
		name = "a11y-" + name
		for _, w := range []struct {
			suffix string
			width  int64
		}{{"", 1280}, {"-narrow", 390}} {
			if err := chromedp.Do(ctx, chromedp.EmulateViewport(w.width, 844)); err != nil {
				t.Fatal(err)
			}
			png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
			if err != nil {
				t.Fatalf("screenshot %s: %v", path, err)
			}
			if err := os.WriteFile(filepath.Join(dir, name+w.suffix+".png"), png, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if err := chromedp.Do(ctx, chromedp.EmulateViewport(1280, 900)); err != nil {
			t.Fatal(err)
		}
	}

	audit("signin", "/signin")
	audit("choose-password", "/signin/link?"+url.Values{"token": {link}}.Encode())
	if err := chromedp.Do(ctx, chromedp.SendKeys(byLabel("Password"), password), chromedp.SendKeys(byLabel("Password again"), password),
		chromedp.Click(button("Set password and sign in")), chromedp.WaitVisible(`//h1[normalize-space()="Inbox"]`)); err != nil {
		t.Fatalf("sign in: %v", err)
	}
	nav, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll("header nav a")).map(a => a.getAttribute("href"))`))
	if err != nil || len(nav) < 5 {
		t.Fatalf("the navigation links: %v %v", nav, err)
	}
	for _, p := range nav {
		audit(slug(p), p)
	}
	for _, p := range [][2]string{{"record", "/records/" + string(fb.ID)}, {"record-hostile", "/records/" + string(other.ID)},
		{"idea", "/records/" + string(idea.ID)}, {"merge", "/records/" + string(fb.ID) + "/merge"},
		{"delete", "/records/" + string(fb.ID) + "/delete"}, {"company", "/companies/" + string(fb.CompanyID)},
		{"link-to-idea", "/inbox/link?id=" + string(fb.ID)}, {"inbox-theme", "/inbox?theme=report"},
		{"signals-week", "/signals?window=7"}, {"not-found", "/records/" + string(core.NewID())},
		{"import-preview", preview}, {"import-preview-chosen", preview + "?encoding=windows-1252&delimiter=bar"}} {
		audit(p[0], p[1])
	}
	fmt.Println("console accessibility screenshots:", dir)
}

// newcomer adds a member who has not chosen a password yet and returns their sign-in link's token.
func (e *env) newcomer(ws core.ID, email string, role core.Role) string {
	e.t.Helper()
	_, link, err := e.svc.AddMember(e.ctx, ws, email, role)
	if err != nil {
		e.t.Fatal(err)
	}
	return link
}

func uniq(list []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range list {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}
