package api

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/feedbridge/feedbridge/core"
)

// Keys, plans and suspension; the rate limit.

func TestKeyHeaders(t *testing.T) {
	eachStore(t, func(t *testing.T, open opener) {
		e := newEnv(t, open, envOpts{})
		ok := []map[string]string{
			{"x-api-key": e.key},
			{"X-API-KEY": e.key},
			{"X-Api-Key": " " + e.key + " "},
			{"Authorization": "Bearer " + e.key},
			{"Authorization": "bearer " + e.key},
		}
		for _, h := range ok {
			e.do(req{method: "GET", path: "/api/records/verify", key: "-", header: h}).want(t, 200)
		}
		fake := "fbk_" + repeat("A", 40)
		refused := []struct {
			name   string
			header map[string]string
			code   string
		}{
			{"missing", nil, "missing api key"},
			{"basic scheme", map[string]string{"Authorization": "Basic " + e.key}, "missing api key"},
			{"unknown key", map[string]string{"X-API-Key": fake}, "invalid api key"},
			{"unknown bearer", map[string]string{"Authorization": "Bearer " + fake}, "invalid api key"},
			{"malformed", map[string]string{"X-API-Key": "hunter2"}, "invalid api key"},
			{"key with one character changed", map[string]string{"X-API-Key": e.key[:len(e.key)-1] + flip(e.key[len(e.key)-1])}, "invalid api key"},
		}
		for _, c := range refused {
			t.Run(c.name, func(t *testing.T) {
				for _, path := range []string{"/api/records/verify", "/api/records", "/api/records/tags"} {
					r := e.do(req{method: "GET", path: path, key: "-", header: c.header}).want(t, 401)
					if r.errorCode(t) != c.code {
						t.Errorf("error %q, want %q", r.errorCode(t), c.code)
					}
					if !strings.HasPrefix(r.header.Get("WWW-Authenticate"), "Bearer") {
						t.Errorf("WWW-Authenticate %q", r.header.Get("WWW-Authenticate"))
					}
					if r.header.Get("X-RateLimit-Limit") != "" {
						t.Error("rate-limit headers on an unauthenticated response")
					}
				}
				e.do(req{method: "POST", path: "/api/records/feedback", key: "-", header: c.header, body: `{"title":"x"}`}).want(t, 401)
			})
		}
		if strings.Contains(e.logs.String(), e.key) || strings.Contains(e.logs.String(), e.key[4:]) {
			t.Error("the API key appears in the log")
		}
	})
}

func flip(c byte) string {
	if c == 'a' {
		return "b"
	}
	return "a"
}

func TestRevokedKey(t *testing.T) {
	eachStore(t, func(t *testing.T, open opener) {
		e := newEnv(t, open, envOpts{})
		ctx := context.Background()
		// A key revoked before its first use is refused at once.
		k, secret, err := e.svc.CreateKey(ctx, e.ws.ID, "short-lived")
		must(t, err)
		must(t, e.svc.RevokeKey(ctx, k.ID))
		r := e.do(req{method: "GET", path: "/api/records/verify", key: secret}).want(t, 401)
		if r.errorCode(t) != "invalid api key" || r.header.Get("WWW-Authenticate") == "" {
			t.Errorf("body %s, WWW-Authenticate %q", r.body, r.header.Get("WWW-Authenticate"))
		}
		// A key in use is refused within the 5 seconds the contract allows a running daemon.
		k, secret, err = e.svc.CreateKey(ctx, e.ws.ID, "in use")
		must(t, err)
		e.do(req{method: "GET", path: "/api/records/verify", key: secret}).want(t, 200)
		must(t, e.svc.RevokeKey(ctx, k.ID))
		waitStatus(t, e, secret, 401, 5*time.Second)
		// The workspace's other key is unaffected.
		e.get("/api/records/verify").want(t, 200)
	})
}

// waitStatus polls verify with key until it answers status, failing after within.
func waitStatus(t *testing.T, e *env, key string, status int, within time.Duration) *resp {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		r := e.do(req{method: "GET", path: "/api/records/verify", key: key})
		if r.status == status {
			return r
		}
		if time.Now().After(deadline) {
			t.Fatalf("still %d after %s, want %d", r.status, within, status)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func TestSuspendedWorkspaceAndPlans(t *testing.T) {
	eachStore(t, func(t *testing.T, open opener) {
		e := newEnv(t, open, envOpts{})
		ctx := context.Background()
		for _, plan := range []core.Plan{core.PlanFree, core.PlanStarter} {
			_, key := e.workspace(ctx, "On "+string(plan), plan, -1)
			for _, rq := range []req{{method: "GET", path: "/api/records/verify"}, {method: "GET", path: "/api/records"},
				{method: "POST", path: "/api/records/idea", body: `{"title":"x"}`}} {
				rq.key = key
				r := e.do(rq).want(t, 403)
				if r.errorCode(t) != "plan does not include API access" {
					t.Errorf("%s: error %q", plan, r.errorCode(t))
				}
			}
		}
		// Suspension, as the CLI does it against the running daemon: effective within 5 seconds.
		e.get("/api/records/verify").want(t, 200)
		yes, no := true, false
		_, err := e.svc.UpdateWorkspace(ctx, e.ws.ID, core.WorkspaceUpdate{Suspended: &yes})
		must(t, err)
		r := waitStatus(t, e, e.key, 403, 5*time.Second)
		if r.errorCode(t) != "workspace not found" {
			t.Errorf("error %q", r.errorCode(t))
		}
		e.post("/api/records/feedback", `{"title":"while suspended"}`).want(t, 403)
		_, err = e.svc.UpdateWorkspace(ctx, e.ws.ID, core.WorkspaceUpdate{Suspended: &no})
		must(t, err)
		waitStatus(t, e, e.key, 200, 5*time.Second)
		// A plan change takes effect the same way.
		free := core.PlanFree
		_, err = e.svc.UpdateWorkspace(ctx, e.ws.ID, core.WorkspaceUpdate{Plan: &free})
		must(t, err)
		waitStatus(t, e, e.key, 403, 5*time.Second)
		recs, err := e.store.Records(ctx, e.ws.ID, core.ListQuery{Type: core.RecordFeedback, Limit: 10})
		must(t, err)
		if len(recs) != 0 {
			t.Errorf("a refused request created %d records", len(recs))
		}
	})
}

func TestRateLimit(t *testing.T) {
	eachStore(t, func(t *testing.T, open opener) {
		e := newEnv(t, open, envOpts{rate: RateLimit{PerSecond: 0.5, Burst: 3}})
		for i := 0; i < 3; i++ {
			r := e.get("/api/records/verify").want(t, 200)
			if got := r.header.Get("X-RateLimit-Limit"); got != "3" {
				t.Errorf("X-RateLimit-Limit %q", got)
			}
			if got := r.header.Get("X-RateLimit-Remaining"); got != strconv.Itoa(2-i) {
				t.Errorf("request %d: X-RateLimit-Remaining %q", i, got)
			}
			if reset, err := strconv.Atoi(r.header.Get("X-RateLimit-Reset")); err != nil || reset < 1 || reset > 6 {
				t.Errorf("X-RateLimit-Reset %q", r.header.Get("X-RateLimit-Reset"))
			}
		}
		r := e.post("/api/records/feedback", `{"title":"one too many"}`).want(t, 429)
		if r.errorCode(t) != "rate limit exceeded" {
			t.Errorf("error %q", r.errorCode(t))
		}
		if ra, err := strconv.Atoi(r.header.Get("Retry-After")); err != nil || ra < 1 || ra > 2 {
			t.Errorf("Retry-After %q", r.header.Get("Retry-After"))
		}
		if r.header.Get("X-RateLimit-Remaining") != "0" {
			t.Errorf("X-RateLimit-Remaining %q", r.header.Get("X-RateLimit-Remaining"))
		}
		// The limit is per key: the other workspace's key, and a second key of this one, have full buckets.
		e.do(req{method: "GET", path: "/api/records/verify", key: e.otherKey}).want(t, 200)
		_, second, err := e.svc.CreateKey(context.Background(), e.ws.ID, "second")
		must(t, err)
		e.do(req{method: "GET", path: "/api/records/verify", key: second}).want(t, 200)
		// Nothing was created by the refused request.
		if ids := e.listAll2(t, second, "/api/records?record_type=Feedback"); len(ids) != 0 {
			t.Errorf("429 created %d records", len(ids))
		}
	})
}

// listAll2 lists with another key (one page is enough here).
func (e *env) listAll2(t *testing.T, key, path string) []any {
	var recs []any
	e.do(req{method: "GET", path: path, key: key}).want(t, 200).decode(t, &recs)
	return recs
}
