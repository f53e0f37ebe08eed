package storetest

import (
	"testing"
	"time"

	"github.com/feedbridge/feedbridge/core"
)

// companyOrder is what a listing shows of each company: id and count.
type companyCount struct {
	ID    core.ID
	Count int
}

func counts(cs []core.Company) []companyCount {
	out := []companyCount{}
	for _, c := range cs {
		out = append(out, companyCount{c.ID, c.FeedbackCount})
	}
	return out
}

// companyPages pages through ws's companies limit at a time and returns them all.
func (f *fixture) companyPages(ws core.ID, limit string) []core.Company {
	f.t.Helper()
	var all []core.Company
	cursor := ""
	for i := 0; ; i++ {
		p, err := f.svc.CompanyList(f.ctx, ws, limit, cursor)
		noErr(f.t, "company list", err)
		all = append(all, p.Companies...)
		if p.Next == "" {
			return all
		}
		if i > 100 {
			f.t.Fatal("company paging does not end")
		}
		cursor = p.Next
	}
}

func (f *fixture) company(ws core.ID, domain string) core.Company {
	f.t.Helper()
	cs, err := f.st.Companies(f.ctx, ws)
	noErr(f.t, "companies", err)
	for _, c := range cs {
		if c.Domain == domain {
			return c
		}
	}
	f.t.Fatalf("no company %s", domain)
	return core.Company{}
}

var companyTests = map[string]func(t *testing.T, f *fixture){
	"CountsAndOrder": func(t *testing.T, f *fixture) {
		ws, other := f.workspace("A", 0).ID, f.workspace("B", 0).ID
		before := time.Now().Add(-time.Second)
		for _, e := range []string{"a@acme.com", "b@acme.com", "x@globex.com"} {
			f.submit(ws, core.Submission{Type: core.RecordFeedback, Title: "t", CustomerEmail: e})
		}
		f.submit(ws, core.Submission{Type: core.RecordIdea, Title: "idea", CustomerEmail: "c@acme.com"})
		f.submit(ws, core.Submission{Type: core.RecordFeedback, Title: "personal", CustomerEmail: "p@gmail.com"})
		_, err := f.svc.SubmitBatch(f.ctx, ws, []core.Submission{
			{Type: core.RecordFeedback, Title: "bulk 1", CustomerEmail: "y@globex.com"},
			{Type: core.RecordFeedback, Title: "bulk 2", CustomerEmail: "z@initech.com"},
			{Type: core.RecordFeedback, Title: "bulk 3", CustomerEmail: "w@initech.com"},
		})
		noErr(t, "bulk", err)
		for range 5 {
			f.submit(other, core.Submission{Type: core.RecordFeedback, Title: "theirs", CustomerEmail: "o@acme.com"})
		}
		empty, err := f.svc.AddCompany(f.ctx, ws, "hooli.com", "Hooli")
		noErr(t, "add company", err)
		equal(t, "new company's count", empty.FeedbackCount, 0)

		acme, globex, initech := f.company(ws, "acme.com"), f.company(ws, "globex.com"), f.company(ws, "initech.com")
		want := []companyCount{{acme.ID, 3}, {globex.ID, 2}, {initech.ID, 2}, {empty.ID, 0}}
		if globex.ID > initech.ID {
			want[1], want[2] = want[2], want[1]
		}
		all := f.companyPages(ws, "")
		equal(t, "listing", counts(all), want)
		for _, limit := range []string{"1", "2", "3", "1000"} {
			equal(t, "paged by "+limit, counts(f.companyPages(ws, limit)), want)
		}
		for _, c := range all {
			if c.CreatedAt.Before(before) || c.CreatedAt.After(time.Now().Add(time.Second)) || c.Name == "" || c.Domain == "" {
				t.Errorf("company %+v", c)
			}
		}
		got, err := f.svc.Company(f.ctx, ws, acme.ID)
		noErr(t, "company", err)
		equal(t, "one company", got, all[0])
		_, err = f.svc.Company(f.ctx, other, acme.ID)
		wantErr(t, "another workspace's company", err, core.ErrNotFound)
		_, err = f.svc.Company(f.ctx, ws, core.NewID())
		wantErr(t, "no such company", err, core.ErrNotFound)
		equal(t, "other workspace", counts(f.companyPages(other, "")), []companyCount{{f.company(other, "acme.com").ID, 5}})

		// An erasure deletes no record, so the counts stay.
		f.forget(ws, "a@acme.com")
		equal(t, "after an erasure", counts(f.companyPages(ws, "")), want)
	},
	// MovedByEdit: an edit that moves a record to another company's customer moves its count, and one that
	// clears the customer takes it away; an edit that leaves the customer changes no count.
	"MovedByEdit": func(t *testing.T, f *fixture) {
		ws := f.workspace("A", 0).ID
		fb := f.submit(ws, core.Submission{Type: core.RecordFeedback, Title: "t", CustomerEmail: "a@acme.com"}).Record
		f.submit(ws, core.Submission{Type: core.RecordFeedback, Title: "t", CustomerEmail: "b@acme.com"})
		f.submit(ws, core.Submission{Type: core.RecordFeedback, Title: "t", CustomerEmail: "x@globex.com"})
		acme, globex := f.company(ws, "acme.com").ID, f.company(ws, "globex.com").ID
		count := func() map[core.ID]int {
			m := map[core.ID]int{}
			for _, c := range f.companyPages(ws, "") {
				m[c.ID] = c.FeedbackCount
			}
			return m
		}
		f.update(ws, fb.ID, core.Patch{Status: str("archived"), Title: str("moved")})
		equal(t, "an edit of other fields", count(), map[core.ID]int{acme: 2, globex: 1})
		f.update(ws, fb.ID, core.Patch{CustomerEmail: str("y@globex.com")})
		equal(t, "moved to globex", count(), map[core.ID]int{acme: 1, globex: 2})
		f.update(ws, fb.ID, core.Patch{CustomerEmail: str("")})
		equal(t, "customer cleared", count(), map[core.ID]int{acme: 1, globex: 1})
	},
	"BadRequests": func(t *testing.T, f *fixture) {
		ws, other := f.workspace("A", 0).ID, f.workspace("B", 0).ID
		for _, d := range []string{"acme.com", "globex.com"} {
			_, err := f.svc.AddCompany(f.ctx, ws, d, "")
			noErr(t, "add", err)
			_, err = f.svc.AddCompany(f.ctx, other, d, "")
			noErr(t, "add", err)
		}
		p, err := f.svc.CompanyList(f.ctx, ws, "1", "")
		noErr(t, "first page", err)
		if p.Next == "" {
			t.Fatal("no next page")
		}
		f.submit(ws, core.Submission{Type: core.RecordIdea, Title: "one"})
		f.submit(ws, core.Submission{Type: core.RecordIdea, Title: "two"})
		records := f.list(ws, core.ListRequest{Limit: "1"}).Next
		cases := []struct{ name, limit, cursor, field string }{
			{"limit 0", "0", "", "limit"},
			{"limit too big", "1001", "", "limit"},
			{"limit not a number", "ten", "", "limit"},
			{"cursor never issued", "", "AAAA", "cursor"},
			{"cursor of another workspace", "1", "", "cursor"},
			{"cursor of the records listing", "1", records, "cursor"},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				cursor := c.cursor
				if c.name == "cursor of another workspace" {
					cursor = p.Next
				}
				target := ws
				if c.name == "cursor of another workspace" {
					target = other
				}
				_, err := f.svc.CompanyList(f.ctx, target, c.limit, cursor)
				ve, ok := err.(*core.ValidationError)
				if !ok || ve.Field != c.field {
					t.Fatalf("got %v, want a validation error of %s", err, c.field)
				}
			})
		}
	},
}
