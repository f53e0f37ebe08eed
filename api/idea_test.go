package api

import (
	"context"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/feedbridge/feedbridge/core"
)

// Ideas, the plan limit and Idempotency-Key.

func TestIdeaCreate(t *testing.T) {
	eachStore(t, func(t *testing.T, open opener) {
		e := newEnv(t, open, envOpts{})
		pricing, bug := label(t, e.tags, "Pricing"), label(t, e.tags, "Bug")
		m := e.post("/api/records/idea", map[string]any{
			"title": "Dark mode", "description": `<p>Please add <b>dark</b> mode<script>alert(1)</script></p><p>Thanks &amp; bye <a href="javascript:alert(1)" onclick="x()">here</a></p>`,
			"product": e.products[0].ID, "user": e.users[0].ID, "tags": []core.ID{pricing, bug, pricing},
			"source": "widget", "customer_email": "max@initrode.com", "customer_name": "Max",
		}).want(t, 201).object(t)
		want := map[string]any{
			"record_type": "Idea", "title": "Dark mode", "description": "Please add dark mode\n\nThanks & bye here",
			"status": "Triage", "assignee": e.users[0].Name, "product": e.products[0].Label,
			"tags": []any{"Pricing", "Bug"}, "accounts": []any{"Initrode"}, "source": "Widget", "customer": "Initrode",
			"customer_email": "max@initrode.com",
		}
		for k, v := range want {
			if !reflect.DeepEqual(m[k], v) {
				t.Errorf("%s = %#v, want %#v", k, m[k], v)
			}
		}
		for _, k := range []string{"release", "timeframe", "importance"} {
			if _, ok := m[k]; ok {
				t.Errorf("idea carries %q", k)
			}
		}
		// The stored HTML is sanitized; no script, handler or javascript: URL survives.
		rec, err := e.svc.Record(context.Background(), e.ws.ID, core.ID(m["id"].(string)))
		must(t, err)
		for _, bad := range []string{"script", "alert", "onclick", "javascript:"} {
			if strings.Contains(rec.DescriptionHTML, bad) {
				t.Errorf("stored HTML keeps %q: %s", bad, rec.DescriptionHTML)
			}
		}
		// record_type: Idea by default, Feedback on request (any case), nothing else.
		for in, want := range map[string]string{"": "Idea", "idea": "Idea", "Feedback": "Feedback", "FEEDBACK": "Feedback"} {
			m := e.post("/api/records/idea", map[string]any{"title": "t", "record_type": in}).want(t, 201).object(t)
			if m["record_type"] != want || !reflect.DeepEqual(m["accounts"], []any{}) || !reflect.DeepEqual(m["tags"], []any{}) {
				t.Errorf("record_type %q → %v", in, m)
			}
		}
	})
}

func TestIdeaForeignIDs(t *testing.T) {
	eachStore(t, func(t *testing.T, open opener) {
		e := newEnv(t, open, envOpts{})
		ctx := context.Background()
		otherTags, err := e.svc.AddLookups(ctx, e.other.ID, core.LookupTag, []string{"Foreign"})
		must(t, err)
		otherProducts, err := e.svc.AddLookups(ctx, e.other.ID, core.LookupProduct, []string{"Foreign"})
		must(t, err)
		otherUser, err := e.svc.AddUser(ctx, e.other.ID, "Stranger", "")
		must(t, err)
		cases := []struct {
			field string
			body  map[string]any
			id    core.ID
		}{
			{"tags", map[string]any{"tags": []core.ID{e.tags[0].ID, otherTags[0].ID}}, otherTags[0].ID},
			{"product", map[string]any{"product": otherProducts[0].ID}, otherProducts[0].ID},
			{"user", map[string]any{"user": otherUser.ID}, otherUser.ID},
			{"product", map[string]any{"product": e.tags[0].ID}, e.tags[0].ID}, // a tag id is no product id
		}
		for _, c := range cases {
			c.body["title"] = "x"
			r := e.post("/api/records/idea", c.body).want(t, 400)
			if code := r.errorCode(t); !strings.Contains(code, string(c.id)) || !strings.HasPrefix(code, "unknown ") {
				t.Errorf("%s: error %q does not name %s", c.field, code, c.id)
			}
		}
		// Refused ideas count nothing against the limit and leave nothing behind.
		ws, err := e.svc.Workspace(ctx, e.ws.ID)
		must(t, err)
		if ws.IdeasUsed != 0 {
			t.Errorf("ideas used %d", ws.IdeasUsed)
		}
		if ids := e.listAll("/api/records"); len(ids) != 0 {
			t.Errorf("records %v", ids)
		}
	})
}

func TestIdeaLimitUnderConcurrency(t *testing.T) {
	eachStore(t, func(t *testing.T, open opener) {
		e := newEnv(t, open, envOpts{ideaLimit: 10})
		const n = 30
		statuses := make([]int, n)
		bodies := make([]*resp, n)
		var wg sync.WaitGroup
		start := make(chan struct{})
		for i := 0; i < n; i++ {
			wg.Add(1)
			go func(i int) {
				defer wg.Done()
				<-start
				r := e.post("/api/records/idea", map[string]any{"title": sprintf("idea %d", i)})
				statuses[i], bodies[i] = r.status, r
			}(i)
		}
		close(start)
		wg.Wait()
		count := map[int]int{}
		for i, s := range statuses {
			count[s]++
			if s == 402 {
				b := bodies[i]
				if b.errorCode(t) != "idea limit reached" {
					t.Errorf("402 error %q", b.errorCode(t))
				}
				msg := b.object(t)["message"].(string)
				if !strings.Contains(msg, "10 of the 10") || !strings.Contains(msg, "pro") {
					t.Errorf("402 message %q names no used/limit and plan", msg)
				}
			}
		}
		if count[201] != 10 || count[402] != 20 {
			t.Fatalf("statuses %v, want 10 × 201 and 20 × 402", count)
		}
		if ids := e.listAll("/api/records?limit=1000"); len(ids) != 10 {
			t.Errorf("%d ideas stored", len(ids))
		}
		// Feedback through /records/feedback never counts; through /records/idea it does.
		e.post("/api/records/feedback", `{"title":"still fine"}`).want(t, 201)
		e.post("/api/records/idea", `{"title":"fb","record_type":"Feedback"}`).want(t, 402)
		// Raising the limit (as the CLI does) lets creation continue.
		limit := 11
		_, err := e.svc.UpdateWorkspace(context.Background(), e.ws.ID, core.WorkspaceUpdate{IdeaLimit: &limit})
		must(t, err)
		e.post("/api/records/idea", `{"title":"eleventh"}`).want(t, 201)
		e.post("/api/records/idea", `{"title":"twelfth"}`).want(t, 402)
	})
}

func TestIdempotencyKey(t *testing.T) {
	eachStore(t, func(t *testing.T, open opener) {
		e := newEnv(t, open, envOpts{ideaLimit: 3})
		post := func(key, path, body, idem string) *resp {
			return e.do(req{method: "POST", path: path, body: body, key: key, header: map[string]string{"Idempotency-Key": idem}})
		}
		for _, path := range []string{"/api/records/feedback", "/api/records/idea"} {
			t.Run(path, func(t *testing.T) {
				body := `{"title":"Once only","description":"hello"}`
				first := post("", path, body, "k-"+path).want(t, 201)
				again := post("", path, body, "k-"+path).want(t, 201)
				if string(first.body) != string(again.body) {
					t.Errorf("replay differs:\n%s\n%s", first.body, again.body)
				}
				// The same key with another body: 409, nothing created.
				r := post("", path, `{"title":"Once only","description":"changed"}`, "k-"+path).want(t, 409)
				if r.errorCode(t) != "idempotency key reused" {
					t.Errorf("error %q", r.errorCode(t))
				}
				// Keys are per workspace: the other workspace gets its own record.
				mine := first.object(t)["id"]
				theirs := post(e.otherKey, path, body, "k-"+path).want(t, 201).object(t)["id"]
				if theirs == mine {
					t.Error("another workspace replayed this workspace's record")
				}
				// A new key makes a new record.
				if post("", path, body, "k2-"+path).want(t, 201).object(t)["id"] == mine {
					t.Error("a new key replayed the old record")
				}
			})
		}
		// The same key on the other endpoint is another request: a conflict, not a replay.
		post("", "/api/records/idea", `{"title":"Once only","description":"hello"}`, "k-/api/records/feedback").want(t, 409)
		// Two feedback and two ideas exist (one per key); replays did not count against the idea limit.
		if ids := e.listAll("/api/records?record_type=Feedback"); len(ids) != 2 {
			t.Errorf("%d feedback records", len(ids))
		}
		ws, err := e.svc.Workspace(context.Background(), e.ws.ID)
		must(t, err)
		if ws.IdeasUsed != 2 {
			t.Errorf("ideas used %d, want 2", ws.IdeasUsed)
		}
		// At the limit a replay still answers 201 with the first record; only new keys are refused.
		e.post("/api/records/idea", `{"title":"third of three"}`).want(t, 201)
		body := `{"title":"Once only","description":"hello"}`
		post("", "/api/records/idea", body, "k-/api/records/idea").want(t, 201)
		post("", "/api/records/idea", body, "k3").want(t, 402)
		for _, bad := range []string{" ", repeat("k", 256), "tab\there"} {
			post("", "/api/records/feedback", `{"title":"x"}`, bad).want(t, 400)
		}
	})
}

func TestIdempotentReplaysUnderConcurrency(t *testing.T) {
	eachStore(t, func(t *testing.T, open opener) {
		e := newEnv(t, open, envOpts{})
		var wg sync.WaitGroup
		ids := make([]string, 10)
		for i := range ids {
			wg.Add(1)
			go func(i int) {
				defer wg.Done()
				r := e.do(req{method: "POST", path: "/api/records/idea", body: `{"title":"race"}`, header: map[string]string{"Idempotency-Key": "race"}})
				if r.status == 201 {
					ids[i] = r.object(t)["id"].(string)
				}
			}(i)
		}
		wg.Wait()
		for _, id := range ids {
			if id != ids[0] || id == "" {
				t.Fatalf("concurrent replays gave %v", ids)
			}
		}
		if got := e.listAll("/api/records"); len(got) != 1 {
			t.Errorf("%d records for one key", len(got))
		}
	})
}
