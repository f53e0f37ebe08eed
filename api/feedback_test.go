package api

import (
	"context"
	"reflect"
	"sort"
	"testing"
)

// Verify, feedback and sources.

func TestVerify(t *testing.T) {
	eachStore(t, func(t *testing.T, open opener) {
		e := newEnv(t, open, envOpts{})
		got := e.get("/api/records/verify").want(t, 200).object(t)
		want := map[string]any{"success": true, "id": string(e.ws.ID), "company_name": "Acme Workspace",
			"message": "API key is valid for workspace Acme Workspace"}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("got %v, want %v", got, want)
		}
		got = e.do(req{method: "GET", path: "/api/records/verify", key: e.otherKey}).want(t, 200).object(t)
		if got["id"] != string(e.other.ID) {
			t.Errorf("other key verified as %v", got["id"])
		}
	})
}

func TestFeedbackResponse(t *testing.T) {
	eachStore(t, func(t *testing.T, open opener) {
		e := newEnv(t, open, envOpts{})
		r := e.post("/api/records/feedback", map[string]any{
			"title": "  Export is slow  ", "description": "It takes <b>minutes</b> &amp; more.",
			"customer_email": "  Jane@EU.Mail.Acme.co.uk ", "customer_name": "Jane", "source": "e-mail",
		}).want(t, 201)
		m := r.object(t)
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		want := []string{"createdAt", "customer", "customer_email", "description", "id", "importance", "source", "status", "title", "updatedAt"}
		if !reflect.DeepEqual(keys, want) {
			t.Fatalf("fields %v, want exactly %v", keys, want)
		}
		checks := map[string]any{"title": "Export is slow", "description": "It takes minutes & more.", "status": "Triage",
			"customer": "Acme", "customer_email": "Jane@EU.Mail.Acme.co.uk", "source": "Email", "importance": nil}
		for k, v := range checks {
			if m[k] != v {
				t.Errorf("%s = %#v, want %#v", k, m[k], v)
			}
		}
		if m["createdAt"] != m["updatedAt"] {
			t.Errorf("createdAt %v updatedAt %v", m["createdAt"], m["updatedAt"])
		}
		// The record is a Feedback: listed under that type, not under the default Idea.
		id := m["id"].(string)
		if ids := e.listAll("/api/records?record_type=Feedback"); !reflect.DeepEqual(ids, []string{id}) {
			t.Errorf("Feedback listing %v", ids)
		}
		if ids := e.listAll("/api/records"); len(ids) != 0 {
			t.Errorf("Idea listing %v", ids)
		}
		rec := e.get("/api/records/"+id).want(t, 200).object(t)
		if rec["record_type"] != "Feedback" || !reflect.DeepEqual(rec["accounts"], []any{"Acme"}) {
			t.Errorf("record %v", rec)
		}
	})
}

func TestFeedbackCompanies(t *testing.T) {
	eachStore(t, func(t *testing.T, open opener) {
		e := newEnv(t, open, envOpts{})
		ctx := context.Background()
		_, err := e.svc.AddCompany(ctx, e.ws.ID, "initech.com", "Initech Corporation")
		must(t, err)
		cases := []struct{ email, customer string }{
			{"jane@eu.mail.acme.co.uk", "Acme"},
			{"bob@acme-corp.co.uk", "Acme Corp"},
			{"ann@big_data-labs.io", "Big Data Labs"},
			{"peter@initech.com", "Initech Corporation"}, // an existing company keeps its name
			{"PETER2@Sales.INITECH.com", "Initech Corporation"},
			{"someone@gmail.com", ""},
			{"someone@hotmail.co.uk", ""},
			{"someone@yahoo.fr", ""},
			{"jürgen@bücher.de", "Bücher"},
			{"anna@xn--bcher-kva.de", "Bücher"}, // the same domain in punycode: the same company
		}
		for _, c := range cases {
			t.Run(c.email, func(t *testing.T) {
				m := e.post("/api/records/feedback", map[string]any{"title": "hi", "customer_email": c.email}).want(t, 201).object(t)
				if m["customer"] != c.customer || m["customer_email"] != c.email {
					t.Errorf("customer %q email %q, want %q", m["customer"], m["customer_email"], c.customer)
				}
			})
		}
		// No company for personal domains, one per registrable domain otherwise.
		cs, err := e.svc.Companies(ctx, e.ws.ID)
		must(t, err)
		if len(cs) != 5 {
			t.Errorf("%d companies: %v", len(cs), cs)
		}
		// A contact that exists without a name takes customer_name later; the same address in other case is
		// the same contact (nothing to see through the API but the company, which must not change).
		e.post("/api/records/feedback", map[string]any{"title": "again", "customer_email": "JANE@eu.mail.acme.co.uk", "customer_name": "Jane"}).want(t, 201)
	})
}

func TestSources(t *testing.T) {
	eachStore(t, func(t *testing.T, open opener) {
		e := newEnv(t, open, envOpts{})
		cases := map[string]string{
			"": "Manual", "   ": "Manual", "api": "API", "REST": "API", "e-mail": "Email", "IMAP": "Email",
			"ms_teams": "Microsoft Teams", "Microsoft.Teams": "Microsoft Teams", "csv import": "CSV",
			"Spreadsheet": "CSV", "portal": "Web", "chrome": "Chrome Extension", "hub spot": "HubSpot",
			"carrier pigeon": "Other", "slack": "Slack",
		}
		for in, want := range cases {
			for _, path := range []string{"/api/records/feedback", "/api/records/idea"} {
				m := e.post(path, map[string]any{"title": "t", "source": in}).want(t, 201).object(t)
				if m["source"] != want {
					t.Errorf("%s source %q → %q, want %q", path, in, m["source"], want)
				}
			}
		}
		// Absent source is Manual too.
		if m := e.post("/api/records/feedback", `{"title":"t"}`).want(t, 201).object(t); m["source"] != "Manual" {
			t.Errorf("absent source → %v", m["source"])
		}
	})
}

func TestFeedbackQueuesInsights(t *testing.T) {
	eachStore(t, func(t *testing.T, open opener) {
		e := newEnv(t, open, envOpts{})
		ctx := context.Background()
		depth := func() int {
			n, err := e.store.InsightQueueDepth(ctx)
			must(t, err)
			return n
		}
		before := depth()
		e.post("/api/records/feedback", `{"title":"no description"}`).want(t, 201)
		e.post("/api/records/feedback", `{"title":"blank description","description":"   "}`).want(t, 201)
		if depth() != before {
			t.Fatalf("queued a job for feedback without a description")
		}
		m := e.post("/api/records/feedback", `{"title":"with description","description":"Search is slow."}`).want(t, 201).object(t)
		if depth() != before+1 {
			t.Fatalf("queue depth %d, want %d", depth(), before+1)
		}
		// While queued, the record's insights are an empty array.
		var ins []any
		e.get("/api/records/"+m["id"].(string)+"/insights").want(t, 200).decode(t, &ins)
		if ins == nil || len(ins) != 0 {
			t.Errorf("insights %v", ins)
		}
		// Feedback made through /records/idea is queued too.
		e.post("/api/records/idea", `{"title":"fb","record_type":"Feedback","description":"Love it."}`).want(t, 201)
		e.post("/api/records/idea", `{"title":"idea","description":"An idea is not queued."}`).want(t, 201)
		if depth() != before+2 {
			t.Errorf("queue depth %d, want %d", depth(), before+2)
		}
	})
}
