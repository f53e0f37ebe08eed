package api

import (
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/feedbridge/feedbridge/core"
)

// createIdea posts an Idea and returns its id.
func (e *env) createIdea(title string, extra map[string]any) string {
	e.t.Helper()
	body := map[string]any{"title": title}
	for k, v := range extra {
		body[k] = v
	}
	return e.post("/api/records/idea", body).want(e.t, 201).object(e.t)["id"].(string)
}

func (e *env) createFeedback(title, email string) string {
	e.t.Helper()
	r := e.post("/api/records/feedback", map[string]any{"title": title, "customer_email": email}).want(e.t, 201)
	if len(r.object(e.t)) != 10 {
		e.t.Fatalf("the feedback create response must keep its ten fields: %s", r.body)
	}
	return r.object(e.t)["id"].(string)
}

func (e *env) patch(id string, body any, header map[string]string) *resp {
	e.t.Helper()
	return e.do(req{method: "PATCH", path: "/api/records/" + id, body: body, header: header})
}

func TestPatchRecord(t *testing.T) {
	eachStore(t, func(t *testing.T, open opener) {
		e := newEnv(t, open, envOpts{})
		id := e.createIdea("Dark mode", nil)
		got := e.get("/api/records/"+id).want(t, 200)
		etag := got.header.Get("ETag")
		if etag == "" {
			t.Fatal("no ETag on GET /records/{id}")
		}
		time.Sleep(5 * time.Millisecond)
		r := e.patch(id, map[string]any{"status": "in progress", "tags": []string{string(e.tags[0].ID)}}, map[string]string{"If-Match": etag}).want(t, 200)
		m := r.object(t)
		if m["status"] != "In progress" || m["updatedAt"] == got.object(t)["updatedAt"] || r.header.Get("ETag") == etag {
			t.Fatalf("patch did not apply: %s (ETag %q)", r.body, r.header.Get("ETag"))
		}
		newTag := r.header.Get("ETag")
		same := e.patch(id, map[string]any{"status": "In Progress"}, nil).want(t, 200)
		if same.header.Get("ETag") != newTag || same.object(t)["updatedAt"] != m["updatedAt"] {
			t.Fatalf("a no-op moved the record: %s", same.body)
		}
		stale := e.patch(id, map[string]any{"title": "x"}, map[string]string{"If-Match": etag}).want(t, 412)
		if stale.errorCode(t) != "precondition failed" {
			t.Fatalf("412 error %q", stale.errorCode(t))
		}
		if e.get("/api/records/" + id).object(t)["title"] != "Dark mode" {
			t.Fatal("a refused patch changed the record")
		}
		for _, c := range []struct {
			name, body, code string
		}{
			{"unknown field", `{"colour": "red"}`, `unknown field "colour"`},
			{"empty", `{}`, "empty patch"},
			{"importance on an idea", `{"importance": 2}`, `field "importance" does not apply to Idea`},
			{"status of another type", `{"status": "Released"}`, `invalid status "Released"`},
			{"merged", `{"status": "merged"}`, "status Merged is set only by a merge"},
			{"release on an idea", `{"release": "v2"}`, `field "release" does not apply to Idea`},
			{"wrong type", `{"title": 5}`, `invalid type for field "title"`},
			{"unknown tag", `{"tags": ["6b02aa68e620474649935e43"]}`, `unknown tag id "6b02aa68e620474649935e43"`},
		} {
			t.Run(c.name, func(t *testing.T) {
				r := e.patch(id, c.body, nil).want(t, 400)
				if r.errorCode(t) != c.code {
					t.Fatalf("error %q, want %q", r.errorCode(t), c.code)
				}
			})
		}
		if e.get("/api/records/"+id).header.Get("ETag") != newTag {
			t.Fatal("a refused patch moved the ETag")
		}
		e.do(req{method: "PATCH", path: "/api/records/" + id, body: `{"title": "x"}`, header: map[string]string{"Content-Type": "text/plain"}}).want(t, 415)
		theirs := e.submit(e.other.ID, core.Submission{Title: "theirs"})
		if e.patch(string(theirs.ID), map[string]any{"title": "mine"}, nil).want(t, 404).errorCode(t) != "record not found" {
			t.Fatal("another workspace's record must be not found")
		}
	})
}

func TestConcurrentPatchesOneWins(t *testing.T) {
	eachStore(t, func(t *testing.T, open opener) {
		e := newEnv(t, open, envOpts{})
		id := e.createIdea("race", nil)
		etag := e.get("/api/records/" + id).header.Get("ETag")
		const n = 6
		statuses := make([]int, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				statuses[i] = e.patch(id, map[string]any{"title": sprintf("title %d", i)}, map[string]string{"If-Match": etag}).status
			}()
		}
		wg.Wait()
		count := map[int]int{}
		for _, s := range statuses {
			count[s]++
		}
		if count[200] != 1 || count[412] != n-1 {
			t.Fatalf("statuses %v: want one 200 and the rest 412", statuses)
		}
	})
}

func TestLinks(t *testing.T) {
	eachStore(t, func(t *testing.T, open opener) {
		e := newEnv(t, open, envOpts{})
		idea := e.createIdea("SSO", map[string]any{"customer_email": "cto@initech.com"})
		fb := e.createFeedback("We need SSO", "jane@acme.com")
		fb2 := e.createFeedback("SSO please", "joe@acme.com")
		r := e.do(req{method: "PUT", path: "/api/records/" + fb + "/links/" + idea, body: map[string]any{"importance": 3}}).want(t, 200)
		m := r.object(t)
		if m["status"] != "Processed" || m["importance"] != 3.0 || len(m["links"].([]any)) != 1 || r.header.Get("ETag") == "" {
			t.Fatalf("linked feedback: %s", r.body)
		}
		e.do(req{method: "PUT", path: "/api/records/" + fb2 + "/links/" + idea}).want(t, 200)
		got := e.get("/api/records/"+idea).want(t, 200).object(t)
		if got["feedback_count"] != 2.0 || strings.Join(toStrings(got["accounts"]), ",") != "Acme,Initech" {
			t.Fatalf("idea after links: %v", got)
		}
		linked := e.listAll("/api/records/" + idea + "/feedback?limit=1&sort=asc")
		if strings.Join(linked, ",") != fb+","+fb2 {
			t.Fatalf("linked feedback %v", linked)
		}
		if code := e.do(req{method: "PUT", path: "/api/records/" + idea + "/links/" + fb}).want(t, 400).errorCode(t); code != "only feedback links to an idea or feature" {
			t.Fatalf("wrong direction: %q", code)
		}
		e.do(req{method: "PUT", path: "/api/records/" + fb + "/links/" + idea, body: `{"importance": 9}`}).want(t, 400)
		e.do(req{method: "PUT", path: "/api/records/" + fb + "/links/" + idea, body: "x", header: map[string]string{"Content-Type": "text/plain"}}).want(t, 415)
		e.do(req{method: "DELETE", path: "/api/records/" + fb + "/links/" + idea}).want(t, 204)
		e.do(req{method: "DELETE", path: "/api/records/" + fb + "/links/" + idea}).want(t, 404)
		if e.get("/api/records/" + idea).object(t)["feedback_count"] != 1.0 {
			t.Fatal("unlink did not drop the count")
		}
		e.get("/api/records/"+fb+"/feedback").want(t, 400)
		e.do(req{method: "PUT", path: "/api/records/" + fb + "/links/" + idea, key: e.otherKey}).want(t, 404)
	})
}

func TestMergeAndDelete(t *testing.T) {
	eachStore(t, func(t *testing.T, open opener) {
		e := newEnv(t, open, envOpts{})
		a, b := e.createIdea("a", nil), e.createIdea("b", nil)
		fb := e.createFeedback("fb", "")
		e.do(req{method: "PUT", path: "/api/records/" + fb + "/links/" + a}).want(t, 200)
		r := e.post("/api/records/"+a+"/merge", map[string]any{"into": b}).want(t, 200)
		if m := r.object(t); m["id"] != b || m["feedback_count"] != 1.0 {
			t.Fatalf("merge answer: %s", r.body)
		}
		if m := e.get("/api/records/" + a).object(t); m["status"] != "Merged" || m["merged_into"] != b {
			t.Fatalf("merged record: %v", m)
		}
		if ids := e.listAll("/api/records"); strings.Join(ids, ",") != b {
			t.Fatalf("listing shows merged records: %v", ids)
		}
		if ids := e.listAll("/api/records?status=merged"); strings.Join(ids, ",") != a {
			t.Fatalf("status=Merged: %v", ids)
		}
		if code := e.post("/api/records/"+b+"/merge", map[string]any{"into": a}).want(t, 409).errorCode(t); code != "record merged" {
			t.Fatalf("merge into a merged record: %q", code)
		}
		e.patch(a, map[string]any{"title": "x"}, nil).want(t, 409)
		e.post("/api/records/"+b+"/merge", map[string]any{"into": b}).want(t, 400)
		e.post("/api/records/"+b+"/merge", map[string]any{"into": fb}).want(t, 400)

		body := map[string]any{"title": "delete me", "description": "Words about quokkas."}
		first := e.do(req{method: "POST", path: "/api/records/feedback", body: body, header: map[string]string{"Idempotency-Key": "k1"}}).want(t, 201).object(t)["id"].(string)
		e.do(req{method: "PUT", path: "/api/records/" + first + "/links/" + b}).want(t, 200)
		e.do(req{method: "DELETE", path: "/api/records/" + first, key: e.otherKey}).want(t, 404)
		e.do(req{method: "DELETE", path: "/api/records/" + first}).want(t, 204)
		e.get("/api/records/"+first).want(t, 404)
		e.get("/api/records/"+first+"/history").want(t, 404)
		if e.get("/api/records/" + b).object(t)["feedback_count"] != 1.0 {
			t.Fatal("delete did not drop the count")
		}
		if ids := e.listAll("/api/records?record_type=Feedback&search=quokkas"); len(ids) != 0 {
			t.Fatalf("search still finds the deleted record: %v", ids)
		}
		again := e.do(req{method: "POST", path: "/api/records/feedback", body: body, header: map[string]string{"Idempotency-Key": "k1"}}).want(t, 201).object(t)["id"]
		if again == first {
			t.Fatal("a replayed key of a deleted record returned it")
		}
	})
}

func TestHistory(t *testing.T) {
	eachStore(t, func(t *testing.T, open opener) {
		e := newEnv(t, open, envOpts{})
		id := e.createIdea("h", nil)
		e.patch(id, map[string]any{"status": "planned"}, nil).want(t, 200)
		e.patch(id, map[string]any{"title": "h2", "product": string(e.products[0].ID)}, nil).want(t, 200)
		var hist []struct {
			At      string           `json:"at"`
			Actor   map[string]any   `json:"actor"`
			Action  string           `json:"action"`
			Changes map[string][]any `json:"changes"`
		}
		e.get("/api/records/"+id+"/history").want(t, 200).decode(t, &hist)
		if len(hist) != 3 {
			t.Fatalf("history %+v", hist)
		}
		for i, want := range []string{"created", "status", "updated"} {
			if hist[i].Action != want || hist[i].Actor["kind"] != "api_key" || hist[i].Actor["name"] != "test" {
				t.Fatalf("entry %d: %+v", i, hist[i])
			}
		}
		if s := hist[1].Changes["status"]; len(s) != 2 || s[0] != "Triage" || s[1] != "Planned" {
			t.Fatalf("status change %v", hist[1].Changes)
		}
		e.do(req{method: "GET", path: "/api/records/" + id + "/history", key: e.otherKey}).want(t, 404)
	})
}

func TestListFiltersOfRecordsThatMove(t *testing.T) {
	eachStore(t, func(t *testing.T, open opener) {
		e := newEnv(t, open, envOpts{})
		hot, cold := e.createIdea("hot", nil), e.createIdea("cold", nil)
		for i := range 2 {
			fb := e.createFeedback(sprintf("fb %d", i), "")
			e.do(req{method: "PUT", path: "/api/records/" + fb + "/links/" + hot}).want(t, 200)
		}
		lone := e.createFeedback("lone", "pat@globex.com")
		if ids := e.listAll("/api/records?order=demand&limit=1"); strings.Join(ids, ",") != hot+","+cold {
			t.Fatalf("demand order %v", ids)
		}
		if ids := e.listAll("/api/records?record_type=Feedback&linked=false"); strings.Join(ids, ",") != lone {
			t.Fatalf("linked=false %v", ids)
		}
		if ids := e.listAll("/api/records?record_type=Feedback&customer_email=PAT@globex.com&status=triage"); strings.Join(ids, ",") != lone {
			t.Fatalf("customer_email %v", ids)
		}
		for _, q := range []string{"record_type=Feedback&status=Planned", "order=demand&record_type=Feedback", "linked=maybe", "order=hot"} {
			e.get("/api/records?"+q).want(t, http.StatusBadRequest)
		}
	})
}

func toStrings(v any) []string {
	var out []string
	for _, x := range v.([]any) {
		out = append(out, x.(string))
	}
	return out
}
