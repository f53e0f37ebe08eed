package console_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/feedbridge/feedbridge/core"
)

func TestCompanies(t *testing.T) {
	eachStore(t, func(t *testing.T, e *env) {
		ws := e.ws.ID
		idea := e.idea(ws, "Single sign-on", "")
		other := e.idea(ws, "Audit log", "")
		g1 := e.submit(ws, core.Submission{Title: "Globex wants SSO", CustomerEmail: "a@globex.com"})
		g2 := e.submit(ws, core.Submission{Title: "Globex again " + hostile, CustomerEmail: "b@globex.com"})
		e.submit(ws, core.Submission{Title: "Initech once", CustomerEmail: "c@initech.com"})
		for _, id := range []core.ID{g1.ID, g2.ID} {
			if _, err := e.svc.Link(e.ctx, ws, id, idea.ID, nil); err != nil {
				t.Fatal(err)
			}
		}
		theirs := e.submit(e.workspace("Other").ID, core.Submission{Title: "Their feedback", CustomerEmail: "z@umbrella.com"})
		_, b := e.member(ws, "vi@acme.com", core.RoleViewer)

		list := b.get("/companies")
		wantStatus(t, "companies", list, http.StatusOK)
		if i, j := strings.Index(list.body, ">Globex</a>"), strings.Index(list.body, ">Initech</a>"); i < 0 || j < 0 || i > j {
			t.Errorf("companies are not by feedback count (%d, %d)", i, j)
		}
		if strings.Contains(list.body, "Umbrella") {
			t.Error("another workspace's company is listed")
		}
		page := b.get("/companies/" + string(g1.CompanyID))
		wantStatus(t, "company", page, http.StatusOK)
		for _, want := range []string{g1.Title, "Globex again &lt;img", idea.Title, `<span class="count">2</span> of its feedback`} {
			if !strings.Contains(page.body, want) {
				t.Errorf("the company page lacks %q", want)
			}
		}
		if strings.Contains(page.body, other.Title) || strings.Contains(page.body, "Initech once") {
			t.Error("the company page shows what is not its own")
		}
		for _, path := range []string{"/companies/" + string(theirs.CompanyID), "/companies/" + string(core.NewID()), "/companies/nope"} {
			wantStatus(t, path, b.get(path), http.StatusNotFound)
		}
	})
}
