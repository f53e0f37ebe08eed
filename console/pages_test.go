package console_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/feedbridge/feedbridge/core"
)

const hostile = `<img src=x onerror=alert(1)>`

func TestSecurityHeaders(t *testing.T) {
	e := newEnv(t, backends()["sqlite"](t))
	rec := e.feedback(e.ws.ID, "A record", "text")
	_, b := e.member(e.ws.ID, "ann@acme.com", core.RoleAdmin)
	for _, path := range []string{"/signin", "/inbox", "/records/" + string(rec.ID), "/connectors", "/settings", "/records/" + string(core.NewID()),
		"/ideas", "/companies", "/signals", "/companies/" + string(rec.CompanyID), "/records/" + string(rec.ID) + "/delete", "/records/" + string(rec.ID) + "/merge"} {
		t.Run(path, func(t *testing.T) {
			res := b.get(path)
			if got := res.header.Get("Cache-Control"); got != "no-store" {
				t.Errorf("Cache-Control %q", got)
			}
			csp := res.header.Get("Content-Security-Policy")
			for _, want := range []string{"frame-ancestors 'none'", "script-src 'self'", "default-src 'none'"} {
				if !strings.Contains(csp, want) {
					t.Errorf("CSP %q lacks %q", csp, want)
				}
			}
			if strings.Contains(csp, "unsafe-inline") || strings.Contains(csp, "unsafe-eval") {
				t.Errorf("CSP allows inline script: %q", csp)
			}
			if strings.Contains(res.body, "<script>") || strings.Contains(res.body, " onclick=") {
				t.Errorf("the page carries inline script")
			}
		})
	}
}

func TestHostileTextIsText(t *testing.T) {
	eachStore(t, func(t *testing.T, e *env) {
		rec := e.feedback(e.ws.ID, hostile, "Before "+hostile+" after")
		_, b := e.member(e.ws.ID, "ann@acme.com", core.RoleViewer)
		for _, path := range []string{"/inbox", "/records/" + string(rec.ID), "/inbox?search=" + url.QueryEscape("onerror")} {
			res := b.get(path)
			wantStatus(t, path, res, http.StatusOK)
			if strings.Contains(res.body, "<img") {
				t.Errorf("%s renders the title as markup", path)
			}
			if !strings.Contains(res.body, "&lt;img src=x onerror=alert(1)&gt;") {
				t.Errorf("%s does not show the title as text", path)
			}
		}
	})
}

func TestInboxAndRecord(t *testing.T) {
	eachStore(t, func(t *testing.T, e *env) {
		older := e.feedback(e.ws.ID, "Export to CSV please", "We need a CSV export of our reports.")
		newer := e.feedback(e.ws.ID, "Dark mode", "The app is too bright at night.")
		other := e.workspace("Other")
		theirs := e.feedback(other.ID, "Their secret feedback", "")
		_, b := e.member(e.ws.ID, "ann@acme.com", core.RoleViewer)

		inbox := b.get("/inbox")
		wantStatus(t, "inbox", inbox, http.StatusOK)
		i, j := strings.Index(inbox.body, newer.Title), strings.Index(inbox.body, older.Title)
		if i < 0 || j < 0 || i > j {
			t.Errorf("inbox is not newest first (%d, %d)", i, j)
		}
		for _, want := range []string{"jane@globex.com", "Globex", "Email", `href="/records/` + string(older.ID) + `"`} {
			if !strings.Contains(inbox.body, want) {
				t.Errorf("inbox lacks %q", want)
			}
		}
		if strings.Contains(inbox.body, theirs.Title) {
			t.Error("the inbox shows another workspace's feedback")
		}
		found := b.get("/inbox?search=csv")
		if !strings.Contains(found.body, older.Title) || strings.Contains(found.body, newer.Title) {
			t.Error("search does not narrow the inbox")
		}

		page := b.get("/records/" + string(older.ID))
		wantStatus(t, "record", page, http.StatusOK)
		for _, want := range []string{older.Title, "We need a CSV export of our reports.", "jane@globex.com", "Globex", "Email"} {
			if !strings.Contains(page.body, want) {
				t.Errorf("record page lacks %q", want)
			}
		}
		for _, tc := range []struct{ name, path string }{
			{"absent id", "/records/" + string(core.NewID())},
			{"malformed id", "/records/not-an-id"},
			{"another workspace's id", "/records/" + string(theirs.ID)},
		} {
			t.Run(tc.name, func(t *testing.T) {
				res := b.get(tc.path)
				wantStatus(t, tc.name, res, http.StatusNotFound)
				if strings.Contains(res.body, theirs.Title) {
					t.Error("another workspace's record leaked")
				}
			})
		}
	})
}

func TestRoles(t *testing.T) {
	eachStore(t, func(t *testing.T, e *env) {
		_, viewer := e.member(e.ws.ID, "vic@acme.com", core.RoleViewer)
		_, editor := e.member(e.ws.ID, "ed@acme.com", core.RoleEditor)
		_, admin := e.member(e.ws.ID, "ada@acme.com", core.RoleAdmin)
		key, _, err := e.svc.CreateKey(e.ctx, e.ws.ID, "existing")
		if err != nil {
			t.Fatal(err)
		}
		other := e.workspace("Other")
		theirKey, _, err := e.svc.CreateKey(e.ctx, other.ID, "theirs")
		if err != nil {
			t.Fatal(err)
		}

		vs := viewer.get("/settings")
		wantStatus(t, "viewer reads settings", vs, http.StatusOK)
		if !strings.Contains(vs.body, "existing") || strings.Contains(vs.body, "Create key") || strings.Contains(vs.body, "Add member") ||
			strings.Contains(vs.body, ">Remove</button>") || !strings.Contains(vs.body, "ada@acme.com") {
			t.Error("a viewer's settings page shows admin controls, or lacks the keys or the members to read")
		}
		for _, tc := range []struct {
			name string
			b    *browser
		}{{"viewer", viewer}, {"editor", editor}} {
			t.Run(tc.name, func(t *testing.T) {
				wantStatus(t, "create key", tc.b.post("/settings/keys", url.Values{"name": {"mine"}}), http.StatusForbidden)
				wantStatus(t, "revoke key", tc.b.post("/settings/keys/"+string(key.ID)+"/revoke", url.Values{}), http.StatusForbidden)
			})
		}
		keys, _ := e.svc.Keys(e.ctx, e.ws.ID)
		if len(keys) != 1 || !keys[0].RevokedAt.IsZero() {
			t.Fatalf("refused requests changed the keys: %+v", keys)
		}

		as := admin.get("/settings")
		for _, want := range []string{">Create key</button>", ">Revoke</button>", "vic@acme.com", "ed@acme.com"} {
			if !strings.Contains(as.body, want) {
				t.Errorf("admin settings lack %q", want)
			}
		}
		created := admin.post("/settings/keys", url.Values{"name": {"zapier"}})
		wantStatus(t, "admin creates a key", created, http.StatusOK)
		keys, _ = e.svc.Keys(e.ctx, e.ws.ID)
		if len(keys) != 2 {
			t.Fatalf("keys after create: %+v", keys)
		}
		i := strings.Index(created.body, "fbk_")
		if i < 0 {
			t.Fatal("the new key is not shown")
		}
		secret := created.body[i : i+44]
		if _, _, err := e.svc.Authenticate(e.ctx, secret); err != nil {
			t.Fatalf("the key shown does not work: %v", err)
		}
		if strings.Contains(admin.get("/settings").body, secret) {
			t.Error("the key is shown again")
		}
		wantStatus(t, "revoke another workspace's key", admin.post("/settings/keys/"+string(theirKey.ID)+"/revoke", url.Values{}), http.StatusNotFound)
		wantStatus(t, "revoke own key", admin.post("/settings/keys/"+string(key.ID)+"/revoke", url.Values{}), http.StatusSeeOther)
		if _, _, err := e.svc.Authenticate(e.ctx, secret); err != nil {
			t.Fatalf("revoking one key revoked another: %v", err)
		}
		theirs, _ := e.svc.Keys(e.ctx, other.ID)
		if !theirs[0].RevokedAt.IsZero() {
			t.Fatal("another workspace's key was revoked")
		}
	})
}

func TestCrossOriginPostRefused(t *testing.T) {
	e := newEnv(t, backends()["sqlite"](t))
	_, admin := e.member(e.ws.ID, "ada@acme.com", core.RoleAdmin)
	tests := []struct {
		name   string
		header http.Header
		want   int
	}{
		{"cross-site fetch metadata", http.Header{"Sec-Fetch-Site": {"cross-site"}}, http.StatusForbidden},
		{"foreign origin", http.Header{"Origin": {"https://evil.example"}}, http.StatusForbidden},
		{"same origin", http.Header{"Sec-Fetch-Site": {"same-origin"}, "Origin": {e.srv.URL}}, http.StatusOK},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			before, _ := e.svc.Keys(e.ctx, e.ws.ID)
			res := admin.do(http.MethodPost, "/settings/keys", url.Values{"name": {tc.name}}, tc.header)
			wantStatus(t, tc.name, res, tc.want)
			after, _ := e.svc.Keys(e.ctx, e.ws.ID)
			if created := len(after) - len(before); (created == 1) != (tc.want == http.StatusOK) {
				t.Fatalf("%s: %d keys created", tc.name, created)
			}
		})
	}
	res := admin.do(http.MethodPost, "/signout", url.Values{}, http.Header{"Sec-Fetch-Site": {"cross-site"}})
	wantStatus(t, "cross-site sign-out", res, http.StatusForbidden)
	wantStatus(t, "still signed in", admin.get("/inbox"), http.StatusOK)
}

func TestConnectorsPage(t *testing.T) {
	e := newEnv(t, backends()["sqlite"](t))
	_, b := e.member(e.ws.ID, "ann@acme.com", core.RoleViewer)
	empty := b.get("/connectors")
	wantStatus(t, "no connectors", empty, http.StatusOK)
	if !strings.Contains(empty.body, "No connector is configured") {
		t.Error("the empty page does not say so")
	}
	err := e.svc.ReportConnector(e.ctx, core.ConnectorStatus{Workspace: e.ws.ID, Name: "support-inbox", Kind: "email", State: "failing",
		LastError: "login refused: " + hostile})
	if err != nil {
		t.Fatal(err)
	}
	err = e.svc.ReportConnector(e.ctx, core.ConnectorStatus{Workspace: e.ws.ID, Name: "hooks", Kind: "webhook", State: "running",
		Refused: 3, LastRefused: "a payload the mapping does not fit: " + hostile, LastRefusedAt: e.svc.Now()})
	if err != nil {
		t.Fatal(err)
	}
	page := b.get("/connectors")
	for _, want := range []string{"support-inbox", "email", "failing", "login refused: &lt;img", "Refused",
		"3 in all", "a payload the mapping does not fit: &lt;img"} {
		if !strings.Contains(page.body, want) {
			t.Errorf("connectors page lacks %q", want)
		}
	}
}

func TestStaticFiles(t *testing.T) {
	e := newEnv(t, backends()["sqlite"](t))
	b := e.browser()
	for _, tc := range []struct {
		path string
		want int
		kind string
	}{
		{"/static/console.css", http.StatusOK, "text/css"},
		{"/static/console.js", http.StatusOK, "javascript"},
		{"/static/favicon.svg", http.StatusOK, "image/svg+xml"},
		{"/static/", http.StatusNotFound, ""},
		{"/static/nothing.css", http.StatusNotFound, ""},
	} {
		t.Run(tc.path, func(t *testing.T) {
			res := b.get(tc.path)
			wantStatus(t, tc.path, res, tc.want)
			if !strings.Contains(res.header.Get("Content-Type"), tc.kind) {
				t.Errorf("Content-Type %q", res.header.Get("Content-Type"))
			}
		})
	}
}
