package console_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/feedbridge/feedbridge/core"
)

func (e *env) idea(ws core.ID, title, desc string) core.Record {
	e.t.Helper()
	res, err := e.svc.Submit(e.ctx, ws, core.Submission{Type: core.RecordIdea, Title: title, Description: desc})
	if err != nil {
		e.t.Fatal(err)
	}
	return res.Record
}

func (e *env) read(ws, id core.ID) core.Record {
	e.t.Helper()
	rec, err := e.svc.Record(e.ctx, ws, id)
	if err != nil {
		e.t.Fatalf("read %s: %v", id, err)
	}
	return rec
}

func TestRecordEdit(t *testing.T) {
	eachStore(t, func(t *testing.T, e *env) {
		rec := e.feedback(e.ws.ID, "Export is slow", "It takes minutes.")
		theirs := e.feedback(e.workspace("Other").ID, "Their feedback", "")
		_, editor := e.member(e.ws.ID, "ed@acme.com", core.RoleEditor)
		_, viewer := e.member(e.ws.ID, "vi@acme.com", core.RoleViewer)
		path := "/records/" + string(rec.ID)

		page := editor.get(path)
		for _, want := range []string{`<label for="title">Title</label>`, `>Save</button>`, `>Merge into…</a>`, `>Delete</a>`, `<option selected>Triage</option>`} {
			if !strings.Contains(page.body, want) {
				t.Errorf("the editor's record page lacks %q", want)
			}
		}
		if v := viewer.get(path); strings.Contains(v.body, ">Save</button>") || strings.Contains(v.body, "Merge into…") {
			t.Error("the viewer's record page offers changes")
		}

		cases := []struct {
			name   string
			b      *browser
			path   string
			form   url.Values
			status int
			title  string // the title afterwards
			body   string // in the answer
		}{
			{"viewer refused", viewer, path, url.Values{"title": {"Viewer was here"}}, http.StatusForbidden, rec.Title, "does not allow"},
			{"blank title", editor, path, url.Values{"title": {"  "}, "description": {"x"}}, http.StatusBadRequest, rec.Title, "The title must not be blank."},
			{"unknown status", editor, path, url.Values{"status": {"Shipped"}}, http.StatusBadRequest, rec.Title, "The statuses of Feedback records are"},
			{"another workspace", editor, "/records/" + string(theirs.ID), url.Values{"title": {"Mine now"}}, http.StatusNotFound, rec.Title, "There is no record"},
			{"malformed id", editor, "/records/nope", url.Values{"title": {"Mine now"}}, http.StatusNotFound, rec.Title, "There is no record"},
			{"saved", editor, path, url.Values{"title": {"Export is very slow"}, "description": {"It takes\r\nminutes."}, "status": {"Archived"}},
				http.StatusSeeOther, "Export is very slow", ""},
			{"unchanged form writes nothing", editor, path, url.Values{"title": {"Export is very slow"}, "description": {"It takes\nminutes."}, "status": {"Archived"}},
				http.StatusSeeOther, "Export is very slow", ""},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				res := c.b.post(c.path, c.form)
				wantStatus(t, c.name, res, c.status)
				if !strings.Contains(res.body, c.body) {
					t.Errorf("answer lacks %q:\n%s", c.body, res.body)
				}
				if got := e.read(e.ws.ID, rec.ID).Title; got != c.title {
					t.Errorf("title %q, want %q", got, c.title)
				}
			})
		}
		got := e.read(e.ws.ID, rec.ID)
		if got.Description != "It takes\nminutes." || got.Status != "Archived" {
			t.Errorf("after save: %q %q", got.Description, got.Status)
		}
		if e.read(theirs.Workspace, theirs.ID).Title != theirs.Title {
			t.Error("another workspace's record was changed")
		}
		hist, err := e.svc.History(e.ctx, e.ws.ID, rec.ID)
		if err != nil {
			t.Fatal(err)
		}
		if len(hist) != 2 || hist[1].Actor != (core.Actor{Kind: core.ActorMember, Name: "ed@acme.com"}) {
			t.Errorf("history %+v: want the creation and one edit by the member", hist)
		}
		page = editor.get(path)
		for _, want := range []string{"member ed@acme.com", "title: Export is slow → Export is very slow", "status: Triage → Archived"} {
			if !strings.Contains(page.body, want) {
				t.Errorf("the history lacks %q", want)
			}
		}
	})
}

func TestRecordLinks(t *testing.T) {
	eachStore(t, func(t *testing.T, e *env) {
		idea := e.idea(e.ws.ID, "CSV export of reports", "Export every report to CSV.")
		fb := e.feedback(e.ws.ID, "We need a CSV export", "Our finance team wants reports as CSV export.")
		theirs := e.idea(e.workspace("Other").ID, "Their CSV export idea", "")
		_, editor := e.member(e.ws.ID, "ed@acme.com", core.RoleEditor)
		_, viewer := e.member(e.ws.ID, "vi@acme.com", core.RoleViewer)
		path := "/records/" + string(fb.ID)

		page := editor.get(path)
		wantStatus(t, "record", page, http.StatusOK)
		if !strings.Contains(page.body, `aria-label="Link to CSV export of reports">Link</button>`) ||
			!strings.Contains(page.body, `name="target" value="`+string(idea.ID)+`"`) {
			t.Fatalf("the idea is not suggested with a Link button:\n%s", page.body)
		}
		cases := []struct {
			name   string
			b      *browser
			target string
			status int
			linked bool
		}{
			{"viewer refused", viewer, string(idea.ID), http.StatusForbidden, false},
			{"another workspace's idea", editor, string(theirs.ID), http.StatusNotFound, false},
			{"not an id", editor, "nope", http.StatusBadRequest, false},
			{"feedback to feedback", editor, string(fb.ID), http.StatusBadRequest, false},
			{"linked", editor, string(idea.ID), http.StatusSeeOther, true},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				wantStatus(t, c.name, c.b.post(path+"/links", url.Values{"target": {c.target}}), c.status)
				got := e.read(e.ws.ID, fb.ID)
				if linked := len(got.Links) == 1 && got.Links[0] == idea.ID; linked != c.linked {
					t.Errorf("links %v", got.Links)
				}
			})
		}
		if got := e.read(e.ws.ID, fb.ID); got.Status != core.StatusProcessed {
			t.Errorf("linked feedback is %s", got.Status)
		}
		page = editor.get(path)
		if !strings.Contains(page.body, `aria-label="Unlink CSV export of reports"`) {
			t.Error("the link is not shown with Unlink")
		}
		if !strings.Contains(page.body, "links: none → “CSV export of reports”") {
			t.Error("the history does not name the idea the feedback was linked to")
		}
		if ideaPage := viewer.get("/records/" + string(idea.ID)); !strings.Contains(ideaPage.body, fb.Title) {
			t.Error("the idea does not list the feedback linked to it")
		}
		wantStatus(t, "unlink by viewer", viewer.post(path+"/links/"+string(idea.ID)+"/remove", url.Values{}), http.StatusForbidden)
		wantStatus(t, "unlink", editor.post(path+"/links/"+string(idea.ID)+"/remove", url.Values{}), http.StatusSeeOther)
		if got := e.read(e.ws.ID, fb.ID); len(got.Links) != 0 {
			t.Errorf("links after unlink %v", got.Links)
		}
		wantStatus(t, "unlink again", editor.post(path+"/links/"+string(idea.ID)+"/remove", url.Values{}), http.StatusNotFound)
		// Unlinked, the idea is no longer on the page, and the history still names it.
		if page = editor.get(path); !strings.Contains(page.body, "links: “CSV export of reports” → none") {
			t.Errorf("the history does not name the idea the feedback was unlinked from:\n%s", page.body)
		}
	})
}

func TestRecordMergeAndDelete(t *testing.T) {
	eachStore(t, func(t *testing.T, e *env) {
		keep := e.idea(e.ws.ID, "Dark mode", "A dark theme.")
		dup := e.idea(e.ws.ID, "Night theme", "A dark theme for night.")
		fb := e.feedback(e.ws.ID, "Too bright", "")
		theirs := e.idea(e.workspace("Other").ID, "Their dark mode", "")
		_, editor := e.member(e.ws.ID, "ed@acme.com", core.RoleEditor)
		_, viewer := e.member(e.ws.ID, "vi@acme.com", core.RoleViewer)
		dupPath := "/records/" + string(dup.ID)

		picker := editor.get(dupPath + "/merge")
		wantStatus(t, "merge page", picker, http.StatusOK)
		if !strings.Contains(picker.body, `aria-label="Merge into Dark mode"`) || strings.Contains(picker.body, `aria-label="Merge into Night theme"`) ||
			strings.Contains(picker.body, fb.Title) || strings.Contains(picker.body, theirs.Title) {
			t.Errorf("the merge page should offer the other idea only:\n%s", picker.body)
		}
		if found := editor.get(dupPath + "/merge?search=" + url.QueryEscape("zzz")); !strings.Contains(found.body, "Nothing matches") {
			t.Error("a search that finds nothing is not said")
		}
		wantStatus(t, "merge page for a viewer", viewer.get(dupPath+"/merge"), http.StatusForbidden)
		cases := []struct {
			name   string
			b      *browser
			into   string
			status int
		}{
			{"viewer refused", viewer, string(keep.ID), http.StatusForbidden},
			{"into itself", editor, string(dup.ID), http.StatusBadRequest},
			{"into nothing", editor, "", http.StatusBadRequest},
			{"into another workspace", editor, string(theirs.ID), http.StatusNotFound},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				wantStatus(t, c.name, c.b.post(dupPath+"/merge", url.Values{"into": {c.into}}), c.status)
				if got := e.read(e.ws.ID, dup.ID); got.Status == core.StatusMerged {
					t.Error("merged anyway")
				}
			})
		}
		res := editor.post(dupPath+"/merge", url.Values{"into": {string(keep.ID)}})
		wantStatus(t, "merge", res, http.StatusSeeOther)
		if loc := res.header.Get("Location"); loc != "/records/"+string(keep.ID) {
			t.Errorf("after merge to %q", loc)
		}
		merged := editor.get(dupPath)
		if got := e.read(e.ws.ID, dup.ID); got.Status != core.StatusMerged || !strings.Contains(merged.body, "Merged into") ||
			strings.Contains(merged.body, ">Save</button>") {
			t.Errorf("merged record %s; page:\n%s", got.Status, merged.body)
		}
		wantStatus(t, "edit a merged record", editor.post(dupPath, url.Values{"title": {"Again"}}), http.StatusConflict)

		fbPath := "/records/" + string(fb.ID)
		confirm := editor.get(fbPath + "/delete")
		wantStatus(t, "confirm page", confirm, http.StatusOK)
		if !strings.Contains(confirm.body, `<button type="submit" class="danger">Delete</button>`) {
			t.Errorf("no confirming Delete button:\n%s", confirm.body)
		}
		e.read(e.ws.ID, fb.ID) // asking is not deleting
		wantStatus(t, "delete by viewer", viewer.post(fbPath+"/delete", url.Values{}), http.StatusForbidden)
		wantStatus(t, "delete from another site", editor.do(http.MethodPost, fbPath+"/delete", url.Values{},
			http.Header{"Sec-Fetch-Site": {"cross-site"}}), http.StatusForbidden)
		e.read(e.ws.ID, fb.ID)
		wantStatus(t, "delete another workspace's", editor.post("/records/"+string(theirs.ID)+"/delete", url.Values{}), http.StatusNotFound)
		res = editor.post(fbPath+"/delete", url.Values{})
		wantStatus(t, "delete", res, http.StatusSeeOther)
		if loc := res.header.Get("Location"); loc != "/inbox" {
			t.Errorf("after delete to %q", loc)
		}
		if _, err := e.svc.Record(e.ctx, e.ws.ID, fb.ID); err == nil {
			t.Error("the record is still there")
		}
		if _, err := e.svc.Record(e.ctx, theirs.Workspace, theirs.ID); err != nil {
			t.Errorf("another workspace's record: %v", err)
		}
		wantStatus(t, "deleted record", editor.get(fbPath), http.StatusNotFound)
	})
}
