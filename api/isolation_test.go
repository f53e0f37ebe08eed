package api

import (
	"context"
	"strings"
	"testing"

	"github.com/feedbridge/feedbridge/core"
)

// TestWorkspaceIsolation checks every endpoint with the other workspace's key: this workspace's ids behave
// exactly like ids that do not exist, and nothing of this workspace shows.
func TestWorkspaceIsolation(t *testing.T) {
	eachStore(t, func(t *testing.T, open opener) {
		e := newEnv(t, open, envOpts{})
		ctx := context.Background()
		rec := e.post("/api/records/idea", map[string]any{"title": "Mine only", "description": "zebra",
			"tags": []core.ID{e.tags[0].ID}, "product": e.products[0].ID, "user": e.users[0].ID}).want(t, 201).object(t)
		id := rec["id"].(string)
		fb := e.post("/api/records/feedback", `{"title":"Mine too","description":"zebra crossing"}`).want(t, 201).object(t)["id"].(string)
		run, err := e.svc.StartImport(ctx, e.ws.ID, "cli", "mine.csv")
		must(t, err)
		must(t, e.svc.ReportConnector(ctx, core.ConnectorStatus{Workspace: e.ws.ID, Name: "mine", Kind: "csv", State: "running"}))
		completeInsights(t, e, map[core.ID][]core.Insight{core.ID(fb): {{Kind: "praise", Summary: "s", Quote: "q", Sentiment: "positive",
			SentimentScore: 0.5, Themes: []string{"zebra"}, Tags: []string{}, Extractor: "builtin"}}})

		as := func(path string) *resp { return e.do(req{method: "GET", path: path, key: e.otherKey}) }
		absent := "6b02aa68e620474649935e43"
		sameAsAbsent := func(path, foreignID string) {
			t.Helper()
			foreign := as(strings.ReplaceAll(path, "ID", foreignID))
			missing := as(strings.ReplaceAll(path, "ID", absent))
			if foreign.status != 404 || missing.status != 404 ||
				strings.ReplaceAll(string(foreign.body), foreignID, absent) != string(missing.body) {
				t.Errorf("%s: foreign %d %s vs absent %d %s", path, foreign.status, foreign.body, missing.status, missing.body)
			}
		}
		sameAsAbsent("/api/records/ID", id)
		sameAsAbsent("/api/records/ID", fb)
		sameAsAbsent("/api/records/ID/insights", fb)
		sameAsAbsent("/api/imports/ID", string(run.ID))

		empty := []string{
			"/api/records", "/api/records?record_type=Feedback", "/api/records?search=zebra",
			"/api/records?record_type=Feedback&search=zebra", "/api/records?tags=" + string(e.tags[0].ID),
			"/api/records?product=" + string(e.products[0].ID), "/api/records?user=" + string(e.users[0].ID),
			"/api/records/tags", "/api/records/product", "/api/records/users", "/api/imports", "/api/connectors",
			"/api/records/signals",
		}
		for _, p := range empty {
			if r := as(p).want(t, 200); strings.TrimSpace(string(r.body)) != "[]" {
				t.Errorf("%s with the other key: %s", p, r.body)
			}
		}
		if got := as("/api/records/verify").object(t)["id"]; got != string(e.other.ID) {
			t.Errorf("verify %v", got)
		}
		// Referencing this workspace's lookups from the other one is an unknown id.
		for _, body := range []map[string]any{
			{"title": "x", "tags": []core.ID{e.tags[0].ID}}, {"title": "x", "product": e.products[0].ID}, {"title": "x", "user": e.users[0].ID},
		} {
			r := e.do(req{method: "POST", path: "/api/records/idea", body: body, key: e.otherKey}).want(t, 400)
			if !strings.HasPrefix(r.errorCode(t), "unknown ") {
				t.Errorf("error %q", r.errorCode(t))
			}
		}
		// And this workspace still sees all of its own.
		if ids := e.listAll("/api/records?search=zebra"); len(ids) != 1 || ids[0] != id {
			t.Errorf("own listing %v", ids)
		}
		e.get("/api/records/"+id).want(t, 200)
		e.get("/api/imports/"+string(run.ID)).want(t, 200)
	})
}
