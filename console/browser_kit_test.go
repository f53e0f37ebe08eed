package console_test

import (
	"context"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
)

// chrome is one headless Chromium session over the test server: it photographs pages into the screenshot
// folder and collects every dialog, console error and script exception as a problem that fails the test.
type chrome struct {
	t        *testing.T
	ctx      context.Context
	base     string
	dir      string
	mu       sync.Mutex
	problems []string
	// expected says whether a console message is one the test provokes on purpose (a refused request's
	// status logged as a failed load).
	expected func(msg string) bool
}

func startChrome(t *testing.T, base string) *chrome {
	bin := findChromium()
	if bin == "" {
		t.Skip("no chromium found (install Debian's chromium, e.g. bash .ci/chromium.sh, or set FEEDBRIDGE_TEST_CHROMIUM)")
	}
	c := &chrome{t: t, base: base, dir: screenshotDir(t), expected: func(string) bool { return false }}
	t.Logf("screenshots in %s", c.dir)
	alloc, cancelAlloc := chromedp.NewExecAllocator(t.Context(), chromedp.ExecPath(bin), chromedp.Headless, chromedp.NoSandbox,
		chromedp.DisableGPU, chromedp.NoFirstRun, chromedp.NoDefaultBrowserCheck, chromedp.UserDataDir(t.TempDir()),
		chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-extensions", true),
		chromedp.Flag("disable-sync", true), chromedp.Flag("disable-dev-shm-usage", true), chromedp.WindowSize(1280, 900))
	ctx, cancel := chromedp.NewContext(alloc)
	ctx, cancelTimeout := context.WithTimeout(ctx, 90*time.Second)
	t.Cleanup(func() { cancelTimeout(); cancel(); cancelAlloc() })
	c.ctx = ctx
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
			c.report("a JavaScript dialog opened: " + msg)
			_, _ = chromedp.Call(ctx, page.HandleJavaScriptDialog, page.HandleJavaScriptDialogParams{Accept: false})
		}
	}()
	messages := chromedp.Console(ctx)
	go func() {
		for msg, err := range messages {
			if err != nil {
				return
			}
			if (msg.Type == "error" || msg.IsException() || msg.Type == "assert") && !c.expected(msg.String()) {
				c.report("console: " + msg.String())
			}
		}
	}()
	t.Cleanup(c.check)
	return c
}

func (c *chrome) report(s string) { c.mu.Lock(); c.problems = append(c.problems, s); c.mu.Unlock() }

// check fails the test on every problem seen; console events arrive asynchronously, so it waits a little.
func (c *chrome) check() {
	time.Sleep(300 * time.Millisecond)
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, p := range c.problems {
		c.t.Error(p)
	}
	c.problems = nil
}

func (c *chrome) shot(name string) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		png, err := chromedp.FullScreenshot(100)(ctx, tg)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(c.dir, name+".png"), png, 0o644)
	})
}

func (c *chrome) do(what string, actions ...chromedp.Action[chromedp.Void]) {
	c.t.Helper()
	if err := chromedp.Do(c.ctx, actions...); err != nil {
		c.t.Fatalf("%s: %v", what, err)
	}
}

func (c *chrome) text(sel string) string {
	c.t.Helper()
	s, err := chromedp.Run(c.ctx, chromedp.Text(sel))
	if err != nil {
		c.t.Fatalf("text of %s: %v", sel, err)
	}
	return strings.TrimSpace(s)
}

func (c *chrome) eval(js string) any {
	c.t.Helper()
	v, err := chromedp.Run(c.ctx, chromedp.Evaluate[any](js, chromedp.EvalAwaitPromise))
	if err != nil {
		c.t.Fatalf("evaluate %s: %v", js, err)
	}
	return v
}

// signIn signs in through the page's labelled fields; a session of another member ends first.
func (c *chrome) signIn(email string) {
	c.t.Helper()
	c.do("sign in as "+email, chromedp.Navigate(c.base+"/signin?next="+url.QueryEscape("/inbox")))
	if n, _ := chromedp.Run(c.ctx, chromedp.Evaluate[int](`document.querySelectorAll("form[action='/signout']").length`)); n > 0 {
		c.do("sign out", chromedp.Click(button("Sign out")), chromedp.WaitVisible(byLabel("Email")))
	}
	c.do("sign in as "+email, chromedp.WaitVisible(byLabel("Email")), chromedp.SendKeys(byLabel("Email"), email),
		chromedp.SendKeys(byLabel("Password"), password), chromedp.Click(button("Sign in")),
		chromedp.WaitVisible(`//h1[normalize-space()="Inbox"]`))
}

// submit clicks a control that posts a form and waits until the answer's page has loaded: the page after
// a post can look like the one before it, so the test marks the old document and waits for one without
// the mark.
func (c *chrome) submit(what, sel string) {
	c.t.Helper()
	c.eval(`window.feedbridgeOld = true`)
	c.do(what, chromedp.Click(sel))
	for deadline := time.Now().Add(15 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		loaded, err := chromedp.Run(c.ctx, chromedp.Evaluate[bool](`window.feedbridgeOld === undefined && document.readyState === "complete"`))
		if err == nil && loaded {
			return
		}
	}
	c.t.Fatalf("%s: no new page within 15 seconds", what)
}
