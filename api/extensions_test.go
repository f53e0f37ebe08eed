package api

import (
	"context"
	"errors"
	"io"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/feedbridge/feedbridge/core"
)

// Lookups, extensions, signals and the operational endpoints.

func TestLookups(t *testing.T) {
	eachStore(t, func(t *testing.T, open opener) {
		e := newEnv(t, open, envOpts{})
		cases := []struct {
			path string
			want []string
		}{
			{"/api/records/tags", []string{"Bug", "onboarding", "Pricing"}},
			{"/api/records/product", []string{"Mobile", "web"}},
			{"/api/records/users", []string{"Ada Lovelace", "grace Hopper"}},
		}
		for _, c := range cases {
			var got []map[string]string
			e.get(c.path).want(t, 200).decode(t, &got)
			var labels []string
			for _, l := range got {
				labels = append(labels, l["label"])
				if !core.ValidID(l["id"]) || len(l) != 2 {
					t.Errorf("%s: item %v", c.path, l)
				}
			}
			if !reflect.DeepEqual(labels, c.want) {
				t.Errorf("%s: %v, want %v", c.path, labels, c.want)
			}
			// A workspace without any answers an empty array.
			r := e.do(req{method: "GET", path: c.path, key: e.otherKey}).want(t, 200)
			if strings.TrimSpace(string(r.body)) != "[]" {
				t.Errorf("%s of an empty workspace: %s", c.path, r.body)
			}
		}
	})
}

func TestImportsAndConnectors(t *testing.T) {
	eachStore(t, func(t *testing.T, open opener) {
		e := newEnv(t, open, envOpts{})
		ctx := context.Background()
		if r := e.get("/api/imports").want(t, 200); strings.TrimSpace(string(r.body)) != "[]" {
			t.Errorf("imports of a new workspace: %s", r.body)
		}
		run, err := e.svc.StartImport(ctx, e.ws.ID, "nightly-crm", "export.csv")
		must(t, err)
		got := e.get("/api/imports/"+string(run.ID)).want(t, 200).object(t)
		if got["status"] != "running" || got["finished_at"] != "" || got["file"] != "export.csv" || got["connector"] != "nightly-crm" {
			t.Errorf("running import %v", got)
		}
		run.Status, run.Rows, run.Created, run.Duplicates, run.Failed = core.ImportSucceeded, 10, 7, 2, 1
		must(t, e.svc.FinishImport(ctx, run))
		var list []map[string]any
		e.get("/api/imports").want(t, 200).decode(t, &list)
		if len(list) != 1 || list[0]["status"] != "succeeded" || list[0]["rows"] != 10.0 || list[0]["failed"] != 1.0 || list[0]["finished_at"] == "" {
			t.Errorf("imports %v", list)
		}
		e.get("/api/imports/6b02aa68e620474649935e43").want(t, 404)
		e.get("/api/imports/nope").want(t, 400)

		must(t, e.svc.ReportConnector(ctx, core.ConnectorStatus{Workspace: e.ws.ID, Name: "support-inbox", Kind: "email",
			State: "running", LastSuccessAt: time.Date(2026, 11, 22, 9, 30, 0, 0, time.UTC), LastError: "dial tcp: timeout"}))
		must(t, e.svc.ReportConnector(ctx, core.ConnectorStatus{Workspace: e.ws.ID, Name: "acme-slack", Kind: "slack", State: "running"}))
		var cs []map[string]any
		e.get("/api/connectors").want(t, 200).decode(t, &cs)
		byName := map[string]map[string]any{}
		for _, c := range cs {
			byName[c["name"].(string)] = c
		}
		want := map[string]any{"name": "support-inbox", "kind": "email", "state": "running",
			"last_success_at": "2026-11-22T09:30:00.000Z", "last_error": "dial tcp: timeout",
			"refused": float64(0), "last_refused": "", "last_refused_at": ""}
		if len(cs) != 2 || !reflect.DeepEqual(byName["support-inbox"], want) || byName["acme-slack"]["last_success_at"] != "" {
			t.Errorf("connectors %v", cs)
		}
	})
}

// completeInsights plays the insight worker: it claims every queued job and stores the given insights.
func completeInsights(t *testing.T, e *env, by map[core.ID][]core.Insight) {
	t.Helper()
	ctx := context.Background()
	jobs, err := e.store.ClaimInsightJobs(ctx, "test-worker", 1000, time.Minute)
	must(t, err)
	for _, j := range jobs {
		ins := by[j.RecordID]
		for i := range ins {
			ins[i].ID, ins[i].Workspace, ins[i].RecordID = core.NewID(), j.Workspace, j.RecordID
			ins[i].CreatedAt = e.svc.Now()
		}
		must(t, e.store.CompleteInsightJob(ctx, j, "test-worker", ins))
	}
}

func TestInsightsAndSignals(t *testing.T) {
	eachStore(t, func(t *testing.T, open opener) {
		e := newEnv(t, open, envOpts{})
		now := time.Now().UTC()
		fb := func(title, email string, at time.Time) core.ID {
			return e.submit(e.ws.ID, core.Submission{Type: core.RecordFeedback, Title: title, Description: title + ".", CustomerEmail: email, CreatedAt: at}).ID
		}
		a := fb("Export is slow", "a@acme.com", now.Add(-time.Hour))
		b := fb("Export fails", "b@globex.com", now.Add(-2*time.Hour))
		old := fb("Export was slow", "c@acme.com", now.Add(-40*24*time.Hour))
		foreign := e.submit(e.other.ID, core.Submission{Type: core.RecordFeedback, Title: "Theirs", Description: "Export."}).ID
		in := func(kind, sentiment string, score float64, themes ...string) core.Insight {
			return core.Insight{Kind: kind, Summary: "s", Quote: "q.", Sentiment: sentiment, SentimentScore: score, Themes: themes, Tags: []string{}, Extractor: "builtin"}
		}
		completeInsights(t, e, map[core.ID][]core.Insight{
			a:       {in("problem", "negative", -0.5, "export", "speed")},
			b:       {in("problem", "negative", -0.7, "export"), in("request", "neutral", 0, "export")},
			old:     {in("problem", "negative", -0.4, "export")},
			foreign: {in("praise", "positive", 0.9, "export", "secret theme")},
		})
		var ins []map[string]any
		e.get("/api/records/"+string(b)+"/insights").want(t, 200).decode(t, &ins)
		if len(ins) != 2 || ins[0]["kind"] != "problem" || ins[0]["extractor"] != "builtin" {
			t.Errorf("insights %v", ins)
		}
		var sig []map[string]any
		e.get("/api/records/signals").want(t, 200).decode(t, &sig)
		if len(sig) != 2 || sig[0]["theme"] != "export" || sig[0]["count"] != 3.0 || sig[0]["records"] != 2.0 {
			t.Fatalf("signals %v", sig)
		}
		if !reflect.DeepEqual(sig[0]["companies"], []any{"Globex", "Acme"}) {
			t.Errorf("companies %v", sig[0]["companies"])
		}
		if tr := sig[0]["trend"].(map[string]any); tr["previous"] != 1.0 || tr["direction"] != "rising" || tr["change"] != 2.0 {
			t.Errorf("trend %v", tr)
		}
		for _, s := range sig {
			if s["theme"] == "secret theme" {
				t.Error("another workspace's theme leaked into signals")
			}
		}
		// The window and limit parameters.
		e.get("/api/records/signals?limit=1").want(t, 200).decode(t, &sig)
		if len(sig) != 1 {
			t.Errorf("limit=1 gave %d", len(sig))
		}
		from := now.Add(-41 * 24 * time.Hour).Format(time.DateOnly)
		to := now.Add(-39 * 24 * time.Hour).Format(time.DateOnly)
		e.get("/api/records/signals?created_from="+from+"&created_to="+to).want(t, 200).decode(t, &sig)
		if len(sig) != 1 || sig[0]["count"] != 1.0 || sig[0]["trend"].(map[string]any)["direction"] != "new" {
			t.Errorf("old window %v", sig)
		}
		if r := e.get("/api/records/signals?created_to=2001-01-01").want(t, 200); strings.TrimSpace(string(r.body)) != "[]" {
			t.Errorf("empty window: %s", r.body)
		}
		for q, code := range map[string]string{"limit=0": "invalid limit", "created_from=soon": "invalid created_from",
			"created_from=2026-02-01&created_to=2026-01-01": "invalid window", "search=x": `unknown query parameter "search"`} {
			if got := e.get("/api/records/signals?"+q).want(t, 400).errorCode(t); got != code {
				t.Errorf("%s: error %q, want %q", q, got, code)
			}
		}
	})
}

func TestOperationalEndpoints(t *testing.T) {
	eachStore(t, func(t *testing.T, open opener) {
		var notReady error
		e := newEnv(t, open, envOpts{ready: func(context.Context) error { return notReady }})
		// No key needed for any of them.
		e.do(req{method: "GET", path: "/healthz", key: "-"}).want(t, 200)
		e.do(req{method: "GET", path: "/readyz", key: "-"}).want(t, 200)
		// A failing outside source is named, the daemon stays ready.
		e.svc.Faults().Set("csv:nightly", true)
		if r := e.do(req{method: "GET", path: "/readyz", key: "-"}).want(t, 200); !strings.Contains(string(r.body), `"failing":["csv:nightly"]`) {
			t.Errorf("readyz with a failing source: %s", r.body)
		}
		e.svc.Faults().Set("csv:nightly", false)
		if r := e.do(req{method: "GET", path: "/readyz", key: "-"}).want(t, 200); strings.Contains(string(r.body), "failing") {
			t.Errorf("readyz after the source recovered: %s", r.body)
		}
		doc := e.do(req{method: "GET", path: "/api/openapi.json", key: "-"}).want(t, 200)
		if string(doc.body) != string(OpenAPI()) {
			t.Error("/api/openapi.json is not the embedded document")
		}
		e.post("/api/records/feedback", `{"title":"counted","source":"slack"}`).want(t, 201)
		e.submit(e.ws.ID, core.Submission{Type: core.RecordFeedback, Title: "from a connector", Source: "Email"})
		r := e.do(req{method: "GET", path: "/metrics", key: "-"}).want(t, 200)
		for _, want := range []string{
			`feedbridge_http_requests_total{route="POST /api/records/feedback",status="201"} 1`,
			`feedbridge_http_request_duration_seconds_bucket{route="GET /healthz"`,
			`feedbridge_records_created_total{source="Slack",type="Feedback"} 1`,
			`feedbridge_records_created_total{source="Email",type="Feedback"} 1`,
		} {
			if !strings.Contains(string(r.body), want) {
				t.Errorf("/metrics lacks %s", want)
			}
		}
		// Unknown paths are labelled by pattern, never by raw path (bounded cardinality).
		e.get("/api/zz-unique-path").want(t, 404)
		r = e.do(req{method: "GET", path: "/metrics", key: "-"})
		if strings.Contains(string(r.body), "zz-unique-path") {
			t.Error("raw path used as a metric label")
		}
		// Readiness fails with the daemon's own check, and with the store gone; the reason stays in the log.
		notReady = errors.New("connectors starting at /var/lib/secret")
		r = e.do(req{method: "GET", path: "/readyz", key: "-"}).want(t, 503)
		if m := r.object(t); m["error"] != "not ready" || m["error_id"] == "" || strings.Contains(string(r.body), "secret") {
			t.Errorf("readyz %s", r.body)
		}
		notReady = nil
		must(t, e.store.Close())
		r = e.do(req{method: "GET", path: "/readyz", key: "-"}).want(t, 503)
		if !strings.Contains(e.logs.String(), r.object(t)["error_id"].(string)) {
			t.Error("readyz error_id not in the log")
		}
		e.do(req{method: "GET", path: "/healthz", key: "-"}).want(t, 200)
	})
}

func TestExtraRoutes(t *testing.T) {
	eachStore(t, func(t *testing.T, open opener) {
		e := newEnv(t, open, envOpts{extra: func(mux *http.ServeMux) {
			mux.HandleFunc("POST /slack/commands", func(w http.ResponseWriter, r *http.Request) {
				b, _ := io.ReadAll(r.Body)
				w.Header().Set("X-Seen-Request-ID", RequestID(r.Context()))
				_, _ = w.Write(b)
			})
		}})
		hr, _ := http.NewRequest("POST", e.srv.URL+"/slack/commands", strings.NewReader("text=hi"))
		hr.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		res, err := http.DefaultClient.Do(hr)
		must(t, err)
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		// Outside /api: no key, any content type, and still a request id.
		if res.StatusCode != 200 || string(b) != "text=hi" || res.Header.Get("X-Request-ID") == "" ||
			res.Header.Get("X-Seen-Request-ID") != res.Header.Get("X-Request-ID") {
			t.Errorf("status %d body %q headers %v", res.StatusCode, b, res.Header)
		}
	})
}
