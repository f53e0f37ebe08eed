package console_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/feedbridge/feedbridge/core"
)

func TestIdeasBoard(t *testing.T) {
	eachStore(t, func(t *testing.T, e *env) {
		ws := e.ws.ID
		quiet := e.idea(ws, "Quiet idea", "")
		popular := e.idea(ws, "Popular idea", "")
		planned := e.idea(ws, "Planned idea", "")
		if _, err := e.svc.Update(e.ctx, ws, planned.ID, core.Patch{Status: strPtr("Planned")}, ""); err != nil {
			t.Fatal(err)
		}
		for _, email := range []string{"a@initech.com", "b@globex.com"} {
			fb := e.submit(ws, core.Submission{Title: "wants it", CustomerEmail: email})
			if _, err := e.svc.Link(e.ctx, ws, fb.ID, popular.ID, nil); err != nil {
				t.Fatal(err)
			}
		}
		theirs := e.idea(e.workspace("Other").ID, "Their idea", "")
		_, viewer := e.member(ws, "vi@acme.com", core.RoleViewer)
		_, editor := e.member(ws, "ed@acme.com", core.RoleEditor)

		board := viewer.get("/ideas")
		wantStatus(t, "board", board, http.StatusOK)
		if i, j := strings.Index(board.body, popular.Title), strings.Index(board.body, quiet.Title); i < 0 || j < 0 || i > j {
			t.Errorf("Triage is not by demand (%d, %d)", i, j)
		}
		for _, want := range []string{`<h2 id="col-Planned">Planned</h2>`, planned.Title, `<span class="count">2</span> feedback`, "Initech", "Globex"} {
			if !strings.Contains(board.body, want) {
				t.Errorf("the board lacks %q", want)
			}
		}
		if strings.Contains(board.body, theirs.Title) || strings.Contains(board.body, ">New idea</button>") {
			t.Error("the board shows another workspace's idea or a viewer's New idea")
		}
		list := viewer.get("/ideas?type=Idea&status=Planned")
		if !strings.Contains(list.body, planned.Title) || strings.Contains(list.body, popular.Title) {
			t.Errorf("the Planned list:\n%s", list.body)
		}
		wantStatus(t, "unknown status", viewer.get("/ideas?status=Shipped"), http.StatusBadRequest)
		wantStatus(t, "features", viewer.get("/ideas?type=Feature"), http.StatusOK)

		for _, c := range []struct {
			name   string
			b      *browser
			form   url.Values
			status int
		}{
			{"viewer refused", viewer, url.Values{"title": {"From a viewer"}}, http.StatusForbidden},
			{"blank title", editor, url.Values{"title": {" "}, "description": {"kept text"}}, http.StatusBadRequest},
			{"created", editor, url.Values{"title": {"Offline mode"}, "description": {"Work <b>offline</b>"}}, http.StatusSeeOther},
		} {
			t.Run(c.name, func(t *testing.T) {
				res := c.b.post("/ideas", c.form)
				wantStatus(t, c.name, res, c.status)
				if c.status == http.StatusBadRequest && !strings.Contains(res.body, "kept text") {
					t.Error("the refused form lost its text")
				}
			})
		}
		page, err := e.svc.List(e.ctx, ws, core.ListRequest{RecordType: "Idea", Search: "offline"})
		if err != nil || len(page.Records) != 1 || page.Records[0].DescriptionHTML != "Work &lt;b&gt;offline&lt;/b&gt;" {
			t.Fatalf("created ideas %+v %v", page.Records, err)
		}
		if got := page.Records[0].CreatedBy; got != (core.Actor{Kind: core.ActorMember, Name: "ed@acme.com"}) {
			t.Errorf("created by %+v", got)
		}
		if n := len(mustList(t, e, ws, "From a viewer")); n != 0 {
			t.Error("the viewer's idea was created")
		}
	})
}

func mustList(t *testing.T, e *env, ws core.ID, search string) []core.Record {
	t.Helper()
	page, err := e.svc.List(e.ctx, ws, core.ListRequest{RecordType: "Idea", Search: search})
	if err != nil {
		t.Fatal(err)
	}
	return page.Records
}
