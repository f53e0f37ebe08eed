package console_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/feedbridge/feedbridge/core"
)

func sessionCookie(t *testing.T, res response) *http.Cookie {
	t.Helper()
	for _, c := range (&http.Response{Header: res.header}).Cookies() {
		if c.Name == "feedbridge_session" {
			return c
		}
	}
	t.Fatalf("no session cookie in %v", res.header)
	return nil
}

func TestSignInLink(t *testing.T) {
	eachStore(t, func(t *testing.T, e *env) {
		_, link, err := e.svc.AddMember(e.ctx, e.ws.ID, "ann@acme.com", core.RoleEditor)
		if err != nil {
			t.Fatal(err)
		}
		b := e.browser()
		path := "/signin/link"
		page := b.get(path + "?token=" + link)
		wantStatus(t, "link page", page, http.StatusOK)
		for _, want := range []string{"ann@acme.com", `<label for="password">Password</label>`} {
			if !strings.Contains(page.body, want) {
				t.Errorf("link page lacks %q", want)
			}
		}
		for _, tc := range []struct {
			name, password, confirm, want string
		}{
			{"too short", "short", "short", "at least 12 characters"},
			{"not the same twice", password, password + "x", "not the same"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				res := b.post(path, url.Values{"token": {link}, "password": {tc.password}, "confirm": {tc.confirm}})
				wantStatus(t, tc.name, res, http.StatusBadRequest)
				if !strings.Contains(res.body, tc.want) {
					t.Errorf("%s: the page does not say %q", tc.name, tc.want)
				}
			})
		}
		res := b.post(path, url.Values{"token": {link}, "password": {password}, "confirm": {password}})
		wantStatus(t, "choose password", res, http.StatusSeeOther)
		if loc := res.header.Get("Location"); loc != "/inbox" {
			t.Errorf("after choosing a password: to %q", loc)
		}
		c := sessionCookie(t, res)
		if !c.HttpOnly || c.SameSite != http.SameSiteLaxMode || c.Secure {
			t.Errorf("cookie over plain HTTP: %+v", c)
		}
		wantStatus(t, "inbox after choosing", b.get("/inbox"), http.StatusOK)
		wantStatus(t, "spent link", e.browser().get(path+"?token="+link), http.StatusNotFound)
		wantStatus(t, "spent link posted", e.browser().post(path, url.Values{"token": {link}, "password": {password}, "confirm": {password}}), http.StatusNotFound)
		wantStatus(t, "no token", e.browser().get(path), http.StatusNotFound)
		logs := e.logs.String()
		if !strings.Contains(logs, "/signin/link") {
			t.Fatal("the requests were not logged; the check below would prove nothing")
		}
		if strings.Contains(logs, link) || strings.Contains(logs, password) || strings.Contains(logs, c.Value) {
			t.Error("a sign-in link token, password or session token reached the log")
		}
	})
}

func TestSignIn(t *testing.T) {
	eachStore(t, func(t *testing.T, e *env) {
		e.member(e.ws.ID, "ann@acme.com", core.RoleViewer)
		page := e.browser().get("/signin")
		wantStatus(t, "sign-in page", page, http.StatusOK)
		for _, want := range []string{`<label for="email">Email</label>`, `<label for="password">Password</label>`, `>Sign in</button>`} {
			if !strings.Contains(page.body, want) {
				t.Errorf("sign-in page lacks %q", want)
			}
		}
		var bodies []string
		for _, tc := range []struct{ name, email, password string }{
			{"wrong password", "ann@acme.com", "not the password"},
			{"unknown address", "zed@acme.com", password},
		} {
			t.Run(tc.name, func(t *testing.T) {
				res := e.browser().post("/signin", url.Values{"email": {tc.email}, "password": {tc.password}})
				wantStatus(t, tc.name, res, http.StatusUnauthorized)
				if !strings.Contains(res.body, "The email or password is wrong.") {
					t.Errorf("%s: the page does not say the email or password is wrong", tc.name)
				}
				bodies = append(bodies, strings.ReplaceAll(res.body, tc.email, ""))
			})
		}
		if len(bodies) == 2 && bodies[0] != bodies[1] {
			t.Error("a wrong password and an unknown address answer differently")
		}

		b := e.browser()
		res := b.post("/signin", url.Values{"email": {"ANN@acme.com"}, "password": {password}, "next": {"/settings"}})
		wantStatus(t, "sign in", res, http.StatusSeeOther)
		if loc := res.header.Get("Location"); loc != "/settings" {
			t.Errorf("after sign-in: to %q, want the page asked for", loc)
		}
		https := e.browser().do(http.MethodPost, "/signin", url.Values{"email": {"ann@acme.com"}, "password": {password}},
			http.Header{"X-Forwarded-Proto": {"https"}})
		if c := sessionCookie(t, https); !c.Secure || !c.HttpOnly || c.SameSite != http.SameSiteLaxMode {
			t.Errorf("cookie over HTTPS: %+v", c)
		}
		evil := e.browser().post("/signin", url.Values{"email": {"ann@acme.com"}, "password": {password}, "next": {"//evil.example/"}})
		if loc := evil.header.Get("Location"); loc != "/inbox" {
			t.Errorf("sign-in sent to another site: %q", loc)
		}

		wantStatus(t, "signed in", b.get("/inbox"), http.StatusOK)
		wantStatus(t, "sign out", b.post("/signout", url.Values{}), http.StatusSeeOther)
		after := b.get("/inbox")
		wantStatus(t, "after sign-out", after, http.StatusSeeOther)
		if !strings.HasPrefix(after.header.Get("Location"), "/signin") {
			t.Errorf("after sign-out: to %q", after.header.Get("Location"))
		}
	})
}

func TestSignedOutSeeSignIn(t *testing.T) {
	e := newEnv(t, backends()["sqlite"](t))
	rec := e.feedback(e.ws.ID, "A record", "")
	for _, path := range []string{"/", "/inbox", "/records/" + string(rec.ID), "/connectors", "/settings", "/inbox?search=x"} {
		t.Run(path, func(t *testing.T) {
			res := e.browser().get(path)
			if path == "/" {
				wantStatus(t, path, res, http.StatusSeeOther)
				res = e.browser().get(res.header.Get("Location"))
			}
			wantStatus(t, path, res, http.StatusSeeOther)
			if loc := res.header.Get("Location"); !strings.HasPrefix(loc, "/signin") {
				t.Fatalf("%s: to %q, want the sign-in page", path, loc)
			}
			if strings.Contains(res.body, rec.Title) {
				t.Fatalf("%s shows workspace data to a signed-out person", path)
			}
		})
	}
	res := e.browser().post("/settings/keys", url.Values{"name": {"x"}})
	wantStatus(t, "signed-out POST", res, http.StatusSeeOther)
	if keys, _ := e.svc.Keys(e.ctx, e.ws.ID); len(keys) != 0 {
		t.Fatalf("a signed-out POST created a key: %+v", keys)
	}
}

func TestRemovedMemberIsSignedOut(t *testing.T) {
	eachStore(t, func(t *testing.T, e *env) {
		m, b := e.member(e.ws.ID, "ann@acme.com", core.RoleAdmin)
		wantStatus(t, "before removal", b.get("/inbox"), http.StatusOK)
		if err := e.svc.RemoveMember(e.ctx, m.ID); err != nil {
			t.Fatal(err)
		}
		wantStatus(t, "after removal", b.get("/inbox"), http.StatusSeeOther)
	})
}

// After three failures, further attempts for the same address wait longer each time; the right password
// still works afterwards.
func TestFailedSignInsAreSlowed(t *testing.T) {
	e := newEnv(t, backends()["sqlite"](t))
	e.member(e.ws.ID, "ann@acme.com", core.RoleViewer)
	attempt := func(pw string) (res response, start, end time.Time) {
		start = time.Now()
		res = e.browser().post("/signin", url.Values{"email": {"ann@acme.com"}, "password": {pw}})
		return res, start, time.Now()
	}
	var starts, ends []time.Time
	for range 6 {
		res, start, end := attempt("wrong password!")
		wantStatus(t, "failure", res, http.StatusUnauthorized)
		starts, ends = append(starts, start), append(ends, end)
	}
	// Configured with 100ms: the fifth is answered no sooner than 100ms after the fourth began, the sixth
	// no sooner than 200ms after the fifth began.
	if gap := ends[4].Sub(starts[3]); gap < 100*time.Millisecond {
		t.Errorf("the fifth failure came %v after the fourth", gap)
	}
	if gap := ends[5].Sub(starts[4]); gap < 200*time.Millisecond {
		t.Errorf("the sixth failure came %v after the fifth", gap)
	}
	res, _, _ := attempt(password)
	wantStatus(t, "right password after failures", res, http.StatusSeeOther)
}
