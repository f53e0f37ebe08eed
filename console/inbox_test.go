package console_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/feedbridge/feedbridge/core"
)

func (e *env) lookup(ws core.ID, kind core.LookupKind, label string) core.ID {
	e.t.Helper()
	ls, err := e.svc.AddLookups(e.ctx, ws, kind, []string{label})
	if err != nil {
		e.t.Fatal(err)
	}
	return ls[0].ID
}

func (e *env) submit(ws core.ID, sub core.Submission) core.Record {
	e.t.Helper()
	sub.Type = core.RecordFeedback
	res, err := e.svc.Submit(e.ctx, ws, sub)
	if err != nil {
		e.t.Fatal(err)
	}
	return res.Record
}

// rowsOf are the titles the inbox lists, in order.
func rowsOf(body string, titles ...string) []string {
	var out []string
	for _, part := range strings.Split(body, `<td class="title"><a href="/records/`)[1:] {
		i := strings.Index(part, `">`)
		j := strings.Index(part, "</a>")
		for _, t := range titles {
			if part[i+2:j] == t {
				out = append(out, t)
			}
		}
	}
	return out
}

func TestInboxFilters(t *testing.T) {
	eachStore(t, func(t *testing.T, e *env) {
		ws := e.ws.ID
		tag := e.lookup(ws, core.LookupTag, "billing")
		product := e.lookup(ws, core.LookupProduct, "Mobile app")
		slack := e.submit(ws, core.Submission{Title: "From Slack", Source: "Slack", CustomerEmail: "ann@initech.com"})
		tagged := e.submit(ws, core.Submission{Title: "Tagged", TagIDs: []core.ID{tag}, CustomerEmail: "bob@globex.com"})
		mobile := e.submit(ws, core.Submission{Title: "On mobile", ProductID: product, CustomerEmail: "cy@globex.com"})
		done := e.submit(ws, core.Submission{Title: "Already done", Source: "Slack"})
		if _, err := e.svc.Update(e.ctx, ws, done.ID, core.Patch{Status: strPtr(core.StatusProcessed)}, ""); err != nil {
			t.Fatal(err)
		}
		all := []string{slack.Title, tagged.Title, mobile.Title, done.Title}
		_, b := e.member(ws, "vi@acme.com", core.RoleViewer)
		for _, c := range []struct {
			name, query string
			want        []string
		}{
			{"everything in triage, newest first", "", []string{mobile.Title, tagged.Title, slack.Title}},
			{"source", "source=slack", []string{slack.Title}},
			{"company", "company=" + string(tagged.CompanyID), []string{mobile.Title, tagged.Title}},
			{"tag", "tag=" + string(tag), []string{tagged.Title}},
			{"product", "product=" + string(product), []string{mobile.Title}},
			{"company and search", "company=" + string(tagged.CompanyID) + "&search=mobile", []string{mobile.Title}},
		} {
			t.Run(c.name, func(t *testing.T) {
				res := b.get("/inbox?" + c.query)
				wantStatus(t, c.query, res, http.StatusOK)
				if got := rowsOf(res.body, all...); strings.Join(got, "|") != strings.Join(c.want, "|") {
					t.Errorf("rows %q, want %q", got, c.want)
				}
			})
		}
		for _, c := range []struct{ name, query, says string }{
			{"unknown source", "source=pigeon", "source must be one of"},
			{"malformed tag", "tag=x", "24-character hex id"},
		} {
			t.Run(c.name, func(t *testing.T) {
				res := b.get("/inbox?" + c.query)
				wantStatus(t, c.query, res, http.StatusBadRequest)
				if !strings.Contains(res.body, c.says) {
					t.Errorf("the page does not say %q", c.says)
				}
			})
		}
		page := b.get("/inbox")
		for _, want := range []string{`<label for="f-source">Source</label>`, `<option value="` + string(tag) + `">billing</option>`,
			`<option value="` + string(product) + `">Mobile app</option>`, `>Globex (2)</option>`} {
			if !strings.Contains(page.body, want) {
				t.Errorf("the filter form lacks %q", want)
			}
		}
		if strings.Contains(page.body, "Mark processed") || strings.Contains(page.body, `type="checkbox"`) {
			t.Error("a viewer is offered triage buttons")
		}
	})
}

func strPtr(s string) *string { return &s }

// A full page of Triage survives many processed records newer than it: the store filters, not the page.
func TestInboxPagesOnlyTriage(t *testing.T) {
	e := newEnv(t, backends()["sqlite"](t))
	old := e.feedback(e.ws.ID, "Old but open", "")
	for range 60 {
		r := e.feedback(e.ws.ID, "Handled", "")
		if _, err := e.svc.Update(e.ctx, e.ws.ID, r.ID, core.Patch{Status: strPtr("Archived")}, ""); err != nil {
			t.Fatal(err)
		}
	}
	_, b := e.member(e.ws.ID, "vi@acme.com", core.RoleViewer)
	res := b.get("/inbox")
	if !strings.Contains(res.body, old.Title) || strings.Contains(res.body, "Handled") || strings.Contains(res.body, "Older feedback") {
		t.Errorf("the first page should hold just the open feedback:\n%s", res.body)
	}
}

func TestInboxFirstInsight(t *testing.T) {
	eachStore(t, func(t *testing.T, e *env) {
		rec := e.feedback(e.ws.ID, "Export is slow", "Exports take minutes.")
		st := e.svc.Store()
		jobs, err := st.ClaimInsightJobs(e.ctx, "test", 10, time.Minute)
		if err != nil || len(jobs) != 1 {
			t.Fatalf("jobs %v %v", jobs, err)
		}
		ins := []core.Insight{
			{Kind: "problem", Summary: "Exports are slow " + hostile, Sentiment: "negative"},
			{Kind: "request", Summary: "Second insight", Sentiment: "neutral"},
		}
		for i := range ins {
			ins[i].ID, ins[i].Workspace, ins[i].RecordID, ins[i].CreatedAt = core.NewID(), e.ws.ID, rec.ID, e.svc.Now()
		}
		if err := st.CompleteInsightJob(e.ctx, jobs[0], "test", ins); err != nil {
			t.Fatal(err)
		}
		_, b := e.member(e.ws.ID, "vi@acme.com", core.RoleViewer)
		res := b.get("/inbox")
		if !strings.Contains(res.body, "Exports are slow &lt;img") || strings.Contains(res.body, "Second insight") {
			t.Errorf("the row should show its first insight only, as text:\n%s", res.body)
		}
	})
}

func TestInboxBulk(t *testing.T) {
	eachStore(t, func(t *testing.T, e *env) {
		ws := e.ws.ID
		a, bb, c := e.feedback(ws, "A", ""), e.feedback(ws, "B", ""), e.feedback(ws, "C", "")
		idea := e.idea(ws, "The idea", "")
		other := e.workspace("Other")
		theirs := e.feedback(other.ID, "Theirs", "")
		theirIdea := e.idea(other.ID, "Their idea", "")
		_, editor := e.member(ws, "ed@acme.com", core.RoleEditor)
		_, viewer := e.member(ws, "vi@acme.com", core.RoleViewer)
		status := func(id core.ID) string { return e.read(ws, id).Status }

		page := editor.get("/inbox")
		for _, want := range []string{`value="processed" data-key="p">Mark processed</button>`, `value="archived" data-key="e">Archive</button>`,
			`formaction="/inbox/link" formmethod="get" data-key="l">Link to idea</button>`, `aria-label="Select A"`} {
			if !strings.Contains(page.body, want) {
				t.Errorf("the inbox lacks %q", want)
			}
		}
		for _, c := range []struct {
			name   string
			b      *browser
			form   url.Values
			status int
		}{
			{"viewer refused", viewer, url.Values{"action": {"processed"}, "id": {string(a.ID)}}, http.StatusForbidden},
			{"nothing selected", editor, url.Values{"action": {"processed"}}, http.StatusBadRequest},
			{"unknown action", editor, url.Values{"action": {"explode"}, "id": {string(a.ID)}}, http.StatusBadRequest},
			{"another workspace's among them", editor, url.Values{"action": {"archived"}, "id": {string(a.ID), string(theirs.ID)}}, http.StatusNotFound},
			{"an idea among them", editor, url.Values{"action": {"archived"}, "id": {string(a.ID), string(idea.ID)}}, http.StatusNotFound},
		} {
			t.Run(c.name, func(t *testing.T) {
				wantStatus(t, c.name, c.b.post("/inbox/status", c.form), c.status)
				if status(a.ID) != core.StatusTriage || e.read(other.ID, theirs.ID).Status != core.StatusTriage {
					t.Error("something was changed")
				}
			})
		}
		res := editor.post("/inbox/status", url.Values{"action": {"archived"}, "id": {string(a.ID), string(bb.ID)}, "back": {"search=x&next=//evil.example"}})
		wantStatus(t, "archive", res, http.StatusSeeOther)
		if loc := res.header.Get("Location"); loc != "/inbox?search=x" {
			t.Errorf("back to %q", loc)
		}
		if status(a.ID) != "Archived" || status(bb.ID) != "Archived" || status(c.ID) != core.StatusTriage {
			t.Errorf("statuses %s %s %s", status(a.ID), status(bb.ID), status(c.ID))
		}
		wantStatus(t, "processed", editor.post("/inbox/status", url.Values{"action": {"processed"}, "id": {string(a.ID)}}), http.StatusSeeOther)
		if status(a.ID) != core.StatusProcessed {
			t.Errorf("status %s", status(a.ID))
		}

		pick := editor.get("/inbox/link?id=" + string(c.ID) + "&id=" + string(bb.ID))
		wantStatus(t, "link picker", pick, http.StatusOK)
		if !strings.Contains(pick.body, `aria-label="Link to The idea"`) || strings.Contains(pick.body, theirIdea.Title) {
			t.Errorf("the picker should offer this workspace's idea:\n%s", pick.body)
		}
		wantStatus(t, "picker for a viewer", viewer.get("/inbox/link?id="+string(c.ID)), http.StatusForbidden)
		wantStatus(t, "link to their idea", editor.post("/inbox/link", url.Values{"id": {string(c.ID)}, "target": {string(theirIdea.ID)}}), http.StatusNotFound)
		wantStatus(t, "link to feedback", editor.post("/inbox/link", url.Values{"id": {string(c.ID)}, "target": {string(a.ID)}}), http.StatusNotFound)
		if len(e.read(ws, c.ID).Links) != 0 {
			t.Fatal("linked anyway")
		}
		wantStatus(t, "link", editor.post("/inbox/link", url.Values{"id": {string(c.ID), string(bb.ID)}, "target": {string(idea.ID)}}), http.StatusSeeOther)
		for _, id := range []core.ID{c.ID, bb.ID} {
			if got := e.read(ws, id).Links; len(got) != 1 || got[0] != idea.ID {
				t.Errorf("links of %s: %v", id, got)
			}
		}
		if n := e.read(ws, idea.ID).FeedbackCount; n != 2 {
			t.Errorf("feedback_count %d", n)
		}
	})
}
