package console_test

import (
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/feedbridge/feedbridge/core"
)

var shownLink = regexp.MustCompile(`(http://[^<"]+/signin/link\?token=[A-Za-z0-9_-]+)`)

// TestMembersManagedByAdmins: an admin adds a member and sees its one-time link, which works; changes a
// role; gives a new link; removes the member. Viewers and editors read the list and every hand-made post
// of theirs is 403 and changes nothing.
func TestMembersManagedByAdmins(t *testing.T) {
	eachStore(t, func(t *testing.T, e *env) {
		me, admin := e.member(e.ws.ID, "ada@acme.com", core.RoleAdmin)
		_, viewer := e.member(e.ws.ID, "vic@acme.com", core.RoleViewer)
		_, editor := e.member(e.ws.ID, "ed@acme.com", core.RoleEditor)

		added := admin.post("/settings/members", url.Values{"email": {"New@Acme.com"}, "role": {"editor"}})
		wantStatus(t, "add member", added, http.StatusOK)
		m := shownLink.FindStringSubmatch(strings.ReplaceAll(added.body, "&amp;", "&"))
		if m == nil || !strings.HasPrefix(m[1], e.srv.URL+"/signin/link?token=") {
			t.Fatalf("the new member's link is not shown:\n%s", added.body)
		}
		link := strings.TrimPrefix(m[1], e.srv.URL)
		if strings.Contains(admin.get("/settings").body, link) {
			t.Error("the sign-in link is shown again")
		}
		if e.logs.String() != "" && strings.Contains(e.logs.String(), strings.TrimPrefix(link, "/signin/link?token=")) {
			t.Error("the sign-in link's token was logged")
		}
		wantStatus(t, "the new member's link", e.browser().get(link), http.StatusOK)
		members, _ := e.svc.Members(e.ctx, e.ws.ID)
		var newcomer core.Member
		for _, x := range members {
			if x.Email == "new@acme.com" {
				newcomer = x
			}
		}
		if newcomer.Role != core.RoleEditor {
			t.Fatalf("added member: %+v", newcomer)
		}
		id := string(newcomer.ID)

		wantStatus(t, "a duplicate", admin.post("/settings/members", url.Values{"email": {"new@acme.com"}, "role": {"viewer"}}), http.StatusBadRequest)
		wantStatus(t, "a bad address", admin.post("/settings/members", url.Values{"email": {"not an address"}, "role": {"viewer"}}), http.StatusBadRequest)
		wantStatus(t, "a bad role", admin.post("/settings/members", url.Values{"email": {"x@acme.com"}, "role": {"owner"}}), http.StatusBadRequest)

		for _, tc := range []struct {
			name string
			b    *browser
		}{{"viewer", viewer}, {"editor", editor}} {
			t.Run(tc.name, func(t *testing.T) {
				page := tc.b.get("/settings")
				if !strings.Contains(page.body, "new@acme.com") || strings.Contains(page.body, "Add member") || strings.Contains(page.body, "Change role") {
					t.Error("the members list is not read-only for a " + tc.name)
				}
				wantStatus(t, "add", tc.b.post("/settings/members", url.Values{"email": {"sneak@acme.com"}, "role": {"admin"}}), http.StatusForbidden)
				wantStatus(t, "role", tc.b.post("/settings/members/"+id+"/role", url.Values{"role": {"admin"}}), http.StatusForbidden)
				wantStatus(t, "link", tc.b.post("/settings/members/"+id+"/link", url.Values{}), http.StatusForbidden)
				wantStatus(t, "remove", tc.b.post("/settings/members/"+id+"/remove", url.Values{}), http.StatusForbidden)
			})
		}
		if got, _ := e.svc.Member(e.ctx, newcomer.ID); got.Role != core.RoleEditor {
			t.Fatalf("refused posts changed the member: %+v", got)
		}
		if after, err := e.svc.Members(e.ctx, e.ws.ID); err != nil || len(after) != 4 {
			t.Fatalf("refused adds changed the members: %d %v", len(after), err)
		}

		wantStatus(t, "change role", admin.post("/settings/members/"+id+"/role", url.Values{"role": {"viewer"}}), http.StatusSeeOther)
		if got, _ := e.svc.Member(e.ctx, newcomer.ID); got.Role != core.RoleViewer {
			t.Fatalf("role after change: %s", got.Role)
		}
		again := admin.post("/settings/members/"+id+"/link", url.Values{})
		wantStatus(t, "new link", again, http.StatusOK)
		if m := shownLink.FindStringSubmatch(again.body); m == nil || strings.TrimPrefix(m[1], e.srv.URL) == link {
			t.Error("a new sign-in link is not shown")
		}
		wantStatus(t, "the old link after a new one", e.browser().get(link), http.StatusNotFound)

		// Nobody demotes or removes themselves, so a workspace keeps its admin.
		wantStatus(t, "demote myself", admin.post("/settings/members/"+string(me.ID)+"/role", url.Values{"role": {"viewer"}}), http.StatusBadRequest)
		wantStatus(t, "remove myself", admin.post("/settings/members/"+string(me.ID)+"/remove", url.Values{}), http.StatusBadRequest)

		other := e.workspace("Other")
		_, stranger := e.member(other.ID, "eve@other.com", core.RoleAdmin)
		wantStatus(t, "another workspace's admin", stranger.post("/settings/members/"+id+"/remove", url.Values{}), http.StatusNotFound)
		wantStatus(t, "a malformed id", admin.post("/settings/members/xyz/remove", url.Values{}), http.StatusNotFound)

		wantStatus(t, "cross-site remove", admin.do(http.MethodPost, "/settings/members/"+id+"/remove", url.Values{},
			http.Header{"Sec-Fetch-Site": {"cross-site"}}), http.StatusForbidden)
		if _, err := e.svc.Member(e.ctx, newcomer.ID); err != nil {
			t.Fatalf("refused removals removed the member: %v", err)
		}
		wantStatus(t, "remove", admin.post("/settings/members/"+id+"/remove", url.Values{}), http.StatusSeeOther)
		if _, err := e.svc.Member(e.ctx, newcomer.ID); err == nil {
			t.Fatal("the member survived Remove")
		}
	})
}

// TestDemotedMemberLosesRightsAtOnce: a role change applies to the member's open session.
func TestDemotedMemberLosesRightsAtOnce(t *testing.T) {
	e := newEnv(t, backends()["sqlite"](t))
	_, admin := e.member(e.ws.ID, "ada@acme.com", core.RoleAdmin)
	ed, editor := e.member(e.ws.ID, "ed@acme.com", core.RoleEditor)
	rec := e.feedback(e.ws.ID, "A title", "")
	wantStatus(t, "demote", admin.post("/settings/members/"+string(ed.ID)+"/role", url.Values{"role": {"viewer"}}), http.StatusSeeOther)
	wantStatus(t, "an edit after the demotion", editor.post("/records/"+string(rec.ID), url.Values{"title": {"Changed"}}), http.StatusForbidden)
	if got := e.read(e.ws.ID, rec.ID); got.Title != "A title" {
		t.Fatalf("the demoted editor changed the title to %q", got.Title)
	}
}
