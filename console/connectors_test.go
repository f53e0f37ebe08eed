package console_test

import (
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/feedbridge/feedbridge/console"
	"github.com/feedbridge/feedbridge/core"
)

// configuredOnly makes a console that counts as configured only the entries named in names.
func configuredOnly(names ...string) func(*console.Options) {
	return func(o *console.Options) {
		o.Configured = func(_ core.ID, _, name string) bool {
			for _, n := range names {
				if n == name {
					return true
				}
			}
			return false
		}
	}
}

var countCells = regexp.MustCompile(`Taken today: </span>(\d+)</td><td class="num"><span class="cell-label">Refused today: </span>(\d+)`)

func TestConnectorsTodayAndConfigured(t *testing.T) {
	eachStore(t, func(t *testing.T, e *env) {
		e = newEnvWith(t, e.svc.Store(), configuredOnly("support-inbox"))
		for _, name := range []string{"support-inbox", "removed-hook"} {
			if err := e.svc.ReportConnector(e.ctx, core.ConnectorStatus{Workspace: e.ws.ID, Name: name, Kind: "email", State: "running"}); err != nil {
				t.Fatal(err)
			}
		}
		e.svc.CountConnector(e.ws.ID, "support-inbox", 4, 1)
		if err := e.svc.FlushConnectorCounts(e.ctx); err != nil {
			t.Fatal(err)
		}
		e.svc.CountConnector(e.ws.ID, "support-inbox", 2, 0) // not written yet: shown all the same
		_, b := e.member(e.ws.ID, "ann@acme.com", core.RoleViewer)
		page := b.get("/connectors")
		wantStatus(t, "connectors", page, http.StatusOK)
		if strings.Contains(page.body, "removed-hook") {
			t.Error("an entry no longer configured is shown")
		}
		m := countCells.FindStringSubmatch(page.body)
		if m == nil || m[1] != "6" || m[2] != "1" {
			t.Errorf("today's counts: %v\n%s", m, page.body)
		}
	})
}

// TestConnectorsLiveInBrowser opens the connectors page in Chromium and counts items behind its back: the
// page's script shows the new counts without a reload, and the CSP lets it fetch.
func TestConnectorsLiveInBrowser(t *testing.T) {
	ctx := headless(t, 1280, 900)
	e := newEnv(t, backends()["sqlite"](t))
	if err := e.svc.ReportConnector(e.ctx, core.ConnectorStatus{Workspace: e.ws.ID, Name: "support-inbox", Kind: "email", State: "running"}); err != nil {
		t.Fatal(err)
	}
	link := e.newcomer(e.ws.ID, "ann@acme.com", core.RoleViewer)
	if err := chromedp.Do(ctx, chromedp.Navigate(e.srv.URL+"/signin/link?token="+link), chromedp.WaitVisible(byLabel("Password")),
		chromedp.SendKeys(byLabel("Password"), password), chromedp.SendKeys(byLabel("Password again"), password),
		chromedp.Click(button("Set password and sign in")), chromedp.WaitVisible(`//h1[normalize-space()="Inbox"]`),
		chromedp.Navigate(e.srv.URL+"/connectors"), chromedp.WaitVisible(`//td[normalize-space()="support-inbox"]`)); err != nil {
		t.Fatal(err)
	}
	cell := `//td[contains(., "Taken today")]`
	before, err := chromedp.Run(ctx, chromedp.Text(cell))
	if err != nil || !strings.HasSuffix(strings.TrimSpace(before), "0") {
		t.Fatalf("before: %q %v", before, err)
	}
	e.svc.CountConnector(e.ws.ID, "support-inbox", 3, 0)
	deadline := time.Now().Add(12 * time.Second)
	for {
		got, err := chromedp.Run(ctx, chromedp.Text(cell))
		if err == nil && strings.HasSuffix(strings.TrimSpace(got), "3") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the page still says %q (%v) after the count changed", got, err)
		}
		time.Sleep(250 * time.Millisecond)
	}
}
