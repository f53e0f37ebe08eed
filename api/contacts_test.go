package api

import (
	"strings"
	"testing"

	"github.com/feedbridge/feedbridge/core"
)

func TestForgetContact(t *testing.T) {
	eachStore(t, func(t *testing.T, open opener) {
		e := newEnv(t, open, envOpts{})
		mine := e.post("/api/records/feedback", map[string]any{"title": "Jane Roe: export fails",
			"description":    "<p>Reach me at <a href=\"mailto:jane@acme.com\">jane@acme.com</a></p>",
			"customer_email": "Jane@Acme.com", "customer_name": "Jane Roe"}).want(t, 201).object(t)["id"].(string)
		theirs := e.do(req{method: "POST", path: "/api/records/feedback", key: e.otherKey, body: map[string]any{
			"title": "Jane Roe in another workspace", "customer_email": "jane@acme.com", "customer_name": "Jane Roe"}}).
			want(t, 201).object(t)["id"].(string)
		completeInsights(t, e, map[core.ID][]core.Insight{core.ID(mine): {{Kind: "problem", Summary: "Jane Roe cannot export",
			Quote: "Reach me at jane@acme.com", Sentiment: "negative", SentimentScore: -0.5, Themes: []string{"export"},
			Tags: []string{}, Extractor: "builtin"}}})

		got := e.post("/api/contacts/forget", map[string]any{"email": "JANE@acme.com"}).want(t, 200).object(t)
		if got["records"] != float64(1) || got["contacts"] != float64(1) {
			t.Fatalf("answer %v", got)
		}
		rec := e.get("/api/records/"+mine).want(t, 200).object(t)
		if rec["customer_email"] != "" || rec["title"] != "[removed]: export fails" || rec["description"] != "Reach me at [removed]" {
			t.Fatalf("record after erasure: %v", rec)
		}
		ins := e.get("/api/records/"+mine+"/insights").want(t, 200).body
		if strings.Contains(strings.ToLower(string(ins)), "jane") {
			t.Fatalf("insights still quote her: %s", ins)
		}
		for _, q := range []string{"jane", "JANE%40acme.com", "roe"} {
			if ids := e.listAll("/api/records?record_type=Feedback&search=" + q); len(ids) != 0 {
				t.Errorf("search %q finds %v", q, ids)
			}
		}
		other := e.do(req{method: "GET", path: "/api/records/" + theirs, key: e.otherKey}).want(t, 200).object(t)
		if other["customer_email"] != "jane@acme.com" || other["title"] != "Jane Roe in another workspace" {
			t.Fatalf("the other workspace's record changed: %v", other)
		}
		again := e.post("/api/contacts/forget", map[string]any{"email": "jane@acme.com"}).want(t, 200).object(t)
		if again["records"] != float64(0) || again["contacts"] != float64(0) {
			t.Fatalf("second erasure %v", again)
		}

		bad := []struct {
			name, body, code string
			status           int
		}{
			{"missing", `{}`, "email is required", 400},
			{"blank", `{"email":"  "}`, "email is required", 400},
			{"not an address", `{"email":"jane"}`, "invalid email", 400},
			{"display name", `{"email":"Jane <jane@acme.com>"}`, "invalid email", 400},
			{"list", `{"email":"a@acme.com, b@acme.com"}`, "invalid email", 400},
			{"wrong type", `{"email":5}`, `invalid type for field "email"`, 400},
			{"unknown field", `{"email":"a@acme.com","name":"A"}`, `unknown field "name"`, 400},
			{"not json", `email=a@acme.com`, "invalid json", 400},
		}
		for _, c := range bad {
			t.Run(c.name, func(t *testing.T) {
				r := e.post("/api/contacts/forget", c.body).want(t, c.status)
				if code := r.errorCode(t); code != c.code {
					t.Fatalf("error %q, want %q", code, c.code)
				}
			})
		}
		r := e.do(req{method: "POST", path: "/api/contacts/forget", body: `{"email":"a@acme.com"}`,
			header: map[string]string{"Content-Type": "text/plain"}}).want(t, 415)
		r.errorCode(t)
		e.do(req{method: "GET", path: "/api/contacts/forget"}).want(t, 405)
	})
}
