package api

import (
	"regexp"
	"strings"
	"testing"
)

func TestCompanies(t *testing.T) {
	eachStore(t, func(t *testing.T, open opener) {
		e := newEnv(t, open, envOpts{})
		for _, addr := range []string{"a@acme.com", "b@eu.acme.com", "c@globex.com", "d@gmail.com"} {
			e.post("/api/records/feedback", map[string]any{"title": "t", "customer_email": addr}).want(t, 201)
		}
		e.post("/api/records/idea", map[string]any{"title": "idea", "customer_email": "e@initech.com"}).want(t, 201)
		for range 3 {
			e.do(req{method: "POST", path: "/api/records/feedback", key: e.otherKey,
				body: map[string]any{"title": "theirs", "customer_email": "x@acme.com"}}).want(t, 201)
		}

		var list []map[string]any
		e.get("/api/companies").want(t, 200).decode(t, &list)
		if len(list) != 3 {
			t.Fatalf("companies: %v", list)
		}
		if list[0]["domain"] != "acme.com" || list[0]["name"] != "Acme" || list[0]["feedback_count"] != float64(2) {
			t.Fatalf("first company: %v", list[0])
		}
		stamp := regexp.MustCompile(`^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$`)
		var ids []string
		for _, c := range list[1:] {
			if c["feedback_count"] != float64(1) {
				t.Errorf("company %v", c)
			}
		}
		for _, c := range list {
			if !stamp.MatchString(c["created_at"].(string)) || len(c) != 5 {
				t.Errorf("company %v", c)
			}
			ids = append(ids, c["id"].(string))
		}
		if ids[1] > ids[2] {
			t.Errorf("ties not by id: %v", ids)
		}
		if got := e.listAll("/api/companies?limit=1"); strings.Join(got, ",") != strings.Join(ids, ",") {
			t.Errorf("paged by one: %v, want %v", got, ids)
		}
		last := e.get("/api/companies?limit=3").want(t, 200)
		if last.header.Get("Link") != "" || last.header.Get("X-Next-Cursor") != "" {
			t.Error("a page with nothing after it has a next link")
		}

		one := e.get("/api/companies/"+ids[0]).want(t, 200).object(t)
		if one["id"] != ids[0] || one["feedback_count"] != float64(2) || one["created_at"] != list[0]["created_at"] {
			t.Errorf("one company: %v", one)
		}
		foreign := e.do(req{method: "GET", path: "/api/companies/" + ids[0], key: e.otherKey}).want(t, 404)
		absent := e.do(req{method: "GET", path: "/api/companies/6b02aa68e620474649935e43", key: e.otherKey}).want(t, 404)
		if strings.ReplaceAll(string(foreign.body), ids[0], "6b02aa68e620474649935e43") != string(absent.body) {
			t.Errorf("another workspace's company %s differs from an absent one %s", foreign.body, absent.body)
		}
		var theirs []map[string]any
		e.do(req{method: "GET", path: "/api/companies", key: e.otherKey}).want(t, 200).decode(t, &theirs)
		if len(theirs) != 1 || theirs[0]["feedback_count"] != float64(3) || theirs[0]["id"] == ids[0] {
			t.Errorf("other workspace's companies: %v", theirs)
		}

		bad := []struct{ path, code string }{
			{"/api/companies?sort=asc", `unknown query parameter "sort"`},
			{"/api/companies?limit=0", "invalid limit"},
			{"/api/companies?limit=1001", "invalid limit"},
			{"/api/companies?limit=1&limit=2", `repeated query parameter "limit"`},
			{"/api/companies?cursor=bogus", "invalid cursor"},
			{"/api/companies/xyz", "invalid id"},
			{"/api/companies/" + ids[0] + "?limit=1", `unknown query parameter "limit"`},
		}
		for _, c := range bad {
			t.Run(c.path, func(t *testing.T) {
				if code := e.get(c.path).want(t, 400).errorCode(t); code != c.code {
					t.Errorf("error %q, want %q", code, c.code)
				}
			})
		}
		e.do(req{method: "POST", path: "/api/companies", body: `{}`}).want(t, 405)
	})
}
