package storetest

import (
	"slices"
	"testing"
	"time"

	"github.com/feedbridge/feedbridge/core"
)

var moveListTests = map[string]func(t *testing.T, f *fixture){
	"Filters": func(t *testing.T, f *fixture) {
		ws := f.workspace("A", 0).ID
		idea := f.idea(ws, core.RecordIdea, "idea", "")
		jane := f.submit(ws, core.Submission{Type: core.RecordFeedback, Title: "jane", CustomerEmail: "Jane@Acme.com"}).Record
		joe := f.submit(ws, core.Submission{Type: core.RecordFeedback, Title: "joe", CustomerEmail: "joe@acme.com"}).Record
		pat := f.submit(ws, core.Submission{Type: core.RecordFeedback, Title: "pat", CustomerEmail: "pat@globex.com", Source: "slack"}).Record
		f.link(ws, jane.ID, idea.ID, nil)
		f.update(ws, pat.ID, core.Patch{Status: str("archived")})
		fb := func(req core.ListRequest) core.ListRequest { req.RecordType = "Feedback"; return req }
		for _, c := range []struct {
			name string
			req  core.ListRequest
			want []core.ID
		}{
			{"status", fb(core.ListRequest{Statuses: []string{"processed"}}), []core.ID{jane.ID}},
			{"statuses", fb(core.ListRequest{Statuses: []string{"Processed", "ARCHIVED"}}), []core.ID{pat.ID, jane.ID}},
			{"company", fb(core.ListRequest{Company: string(jane.CompanyID)}), []core.ID{joe.ID, jane.ID}},
			{"customer email", fb(core.ListRequest{CustomerEmail: "jane@acme.COM"}), []core.ID{jane.ID}},
			{"linked", fb(core.ListRequest{Linked: "true"}), []core.ID{jane.ID}},
			{"not linked", fb(core.ListRequest{Linked: "false"}), []core.ID{pat.ID, joe.ID}},
			{"source", fb(core.ListRequest{Source: "SLACK"}), []core.ID{pat.ID}},
			{"source by another spelling", fb(core.ListRequest{Source: "manual"}), []core.ID{joe.ID, jane.ID}},
			{"source and status", fb(core.ListRequest{Source: "Slack", Statuses: []string{"Triage"}}), []core.ID{}},
		} {
			t.Run(c.name, func(t *testing.T) {
				equal(t, c.name, ids(f.pageAll(ws, c.req)), c.want)
			})
		}
		for _, c := range []struct {
			name, field string
			req         core.ListRequest
		}{
			{"status of another type", "status", fb(core.ListRequest{Statuses: []string{"Planned"}})},
			{"linked", "linked", fb(core.ListRequest{Linked: "yes"})},
			{"order", "order", core.ListRequest{Order: "popular"}},
			{"demand on feedback", "order", fb(core.ListRequest{Order: "demand"})},
			{"company", "company", fb(core.ListRequest{Company: "acme"})},
			{"unknown source", "source", fb(core.ListRequest{Source: "Carrier pigeon"})},
		} {
			t.Run("refused/"+c.name, func(t *testing.T) {
				_, err := f.svc.List(f.ctx, ws, c.req)
				wantField(t, c.name, err, c.field)
			})
		}
	},
	"OrdersPage": func(t *testing.T, f *fixture) {
		ws := f.workspace("A", 0).ID
		var ideas []core.Record
		for i := range 9 {
			ideas = append(ideas, f.idea(ws, core.RecordIdea, title(i), ""))
			f.clock.Advance(time.Millisecond)
		}
		// Demand: idea i gets i%3 linked feedback, so counts tie and createdAt decides within a count.
		for i, idea := range ideas {
			for range i % 3 {
				f.link(ws, f.feedback(ws, "fb", "").ID, idea.ID, nil)
			}
		}
		// Updated: edited in reverse order of creation.
		for i := len(ideas) - 1; i >= 0; i-- {
			f.clock.Advance(time.Millisecond)
			f.update(ws, ideas[i].ID, core.Patch{Description: str("edited")})
		}
		for _, c := range []struct {
			order string
			asc   bool
			less  func(a, b core.Record) int
		}{
			{"demand", false, func(a, b core.Record) int {
				if a.FeedbackCount != b.FeedbackCount {
					return b.FeedbackCount - a.FeedbackCount
				}
				return b.CreatedAt.Compare(a.CreatedAt)
			}},
			{"demand", true, func(a, b core.Record) int {
				if a.FeedbackCount != b.FeedbackCount {
					return a.FeedbackCount - b.FeedbackCount
				}
				return a.CreatedAt.Compare(b.CreatedAt)
			}},
			{"updated", false, func(a, b core.Record) int { return b.UpdatedAt.Compare(a.UpdatedAt) }},
			{"updated", true, func(a, b core.Record) int { return a.UpdatedAt.Compare(b.UpdatedAt) }},
		} {
			sort := "desc"
			if c.asc {
				sort = "asc"
			}
			t.Run(c.order+"/"+sort, func(t *testing.T) {
				var recs []core.Record
				for _, idea := range ideas {
					recs = append(recs, f.read(ws, idea.ID))
				}
				slices.SortStableFunc(recs, c.less)
				got := f.pageAll(ws, core.ListRequest{Order: c.order, Sort: sort, Limit: "2"})
				equal(t, "order across pages", ids(got), ids(recs))
			})
		}
	},
}
