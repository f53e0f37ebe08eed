package api

import (
	"reflect"
	"strings"
	"testing"

	"github.com/feedbridge/feedbridge/core"
)

type suggestionItem struct {
	Record map[string]any `json:"record"`
	Score  float64        `json:"score"`
	Reason string         `json:"reason"`
}

// suggest asks for a record's suggestions and checks what every answer must satisfy: best first, scores in
// 0…1, a reason, only Ideas and Features, never the record itself.
func (e *env) suggest(t *testing.T, id core.ID, query string) []suggestionItem {
	t.Helper()
	var items []suggestionItem
	e.get("/api/records/"+string(id)+"/suggestions"+query).want(t, 200).decode(t, &items)
	for i, it := range items {
		if it.Score < 0 || it.Score > 1 || (i > 0 && it.Score > items[i-1].Score) {
			t.Errorf("item %d: score %v (scores %v) not in 0…1 or not best first", i, it.Score, items)
		}
		if !strings.HasPrefix(it.Reason, "both mention: ") || len(it.Reason) <= len("both mention: ") {
			t.Errorf("item %d: reason %q", i, it.Reason)
		}
		if typ := it.Record["record_type"]; typ != "Idea" && typ != "Feature" {
			t.Errorf("item %d: a %v suggested", i, typ)
		}
		if it.Record["id"] == string(id) {
			t.Errorf("item %d: the record itself suggested", i)
		}
	}
	return items
}

func titles(items []suggestionItem) []string {
	var out []string
	for _, it := range items {
		out = append(out, it.Record["title"].(string))
	}
	return out
}

func TestSuggestions(t *testing.T) {
	eachStore(t, func(t *testing.T, open opener) {
		e := newEnv(t, open, envOpts{})
		idea := func(title, desc string, typ core.RecordType) core.Record {
			return e.submit(e.ws.ID, core.Submission{Type: typ, Title: title, Description: desc})
		}
		dark := idea("Dark mode", "A darker colour scheme for the web app.", core.RecordIdea)
		export := idea("Export reports to CSV", "Download any table as a file.", core.RecordIdea)
		sso := idea("SAML single sign-on", "Log in through Okta or Azure AD.", core.RecordFeature)
		idea("Recurring tasks", "Tasks that repeat every week.", core.RecordIdea)
		// The other workspace has an idea that would match best; it must never show.
		e.submit(e.other.ID, core.Submission{Type: core.RecordIdea, Title: "Night theme", Description: "white screen hurts eyes at night"})
		objective := idea("Grow revenue", "", core.RecordObjective)

		cases := []struct {
			name, text string
			want       core.Record
			reason     string // a word the reason must contain
		}{
			{"synonym", "The white screen hurts my eyes at night, a black theme please", dark, "dark mode"},
			{"typo", "exprot the numbers to a spreadsheet so finance can open them in excel", export, "export"},
			{"paraphrase", "our IT wants everyone to authenticate through our identity provider", sso, "single sign-on"},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				fb := e.post("/api/records/feedback", map[string]string{"title": c.text}).want(t, 201).object(t)
				items := e.suggest(t, core.ID(fb["id"].(string)), "")
				if len(items) == 0 || items[0].Record["id"] != string(c.want.ID) {
					t.Fatalf("suggestions %v, want %q first", titles(items), c.want.Title)
				}
				if !strings.Contains(items[0].Reason, c.reason) {
					t.Errorf("reason %q does not name %q", items[0].Reason, c.reason)
				}
				// The record object is the one GET /records/{id} shows.
				one := e.get("/api/records/"+string(c.want.ID)).want(t, 200).object(t)
				if !reflect.DeepEqual(items[0].Record, one) {
					t.Errorf("record %v, want %v", items[0].Record, one)
				}
			})
		}

		t.Run("duplicates of an idea", func(t *testing.T) {
			dup := idea("Night theme", "Please add a black background option", core.RecordIdea)
			items := e.suggest(t, dup.ID, "?limit=20")
			if len(items) == 0 || items[0].Record["id"] != string(dark.ID) {
				t.Fatalf("duplicates %v, want Dark mode first", titles(items))
			}
		})

		t.Run("a new idea is found at once", func(t *testing.T) {
			fb := e.submit(e.ws.ID, core.Submission{Type: core.RecordFeedback, Title: "let me pay with Apple Pay at checkout"})
			before := e.suggest(t, fb.ID, "")
			id := e.post("/api/records/idea", map[string]any{"title": "Wallet payments", "description": "Apple Pay and Google Pay"}).want(t, 201).object(t)["id"]
			after := e.suggest(t, fb.ID, "")
			if len(after) == 0 || after[0].Record["id"] != id {
				t.Fatalf("after the idea was created: %v (before: %v)", titles(after), titles(before))
			}
		})

		t.Run("limit", func(t *testing.T) {
			fb := e.submit(e.ws.ID, core.Submission{Type: core.RecordFeedback, Title: "dark mode and csv export and okta login and tasks every week"})
			if n := len(e.suggest(t, fb.ID, "?limit=1")); n != 1 {
				t.Errorf("limit=1: %d items", n)
			}
			if n := len(e.suggest(t, fb.ID, "?limit=20")); n < 4 {
				t.Errorf("limit=20: %d items, want every matching idea", n)
			}
			bad := []struct{ query, code string }{
				{"?limit=0", "invalid limit"}, {"?limit=21", "invalid limit"}, {"?limit=five", "invalid limit"},
				{"?limit=1&limit=2", `repeated query parameter "limit"`},
				{"?top=3", `unknown query parameter "top"`},
			}
			for _, b := range bad {
				r := e.get("/api/records/"+string(fb.ID)+"/suggestions"+b.query).want(t, 400)
				if code := r.errorCode(t); code != b.code {
					t.Errorf("%s: error %q, want %q", b.query, code, b.code)
				}
			}
		})

		t.Run("ids", func(t *testing.T) {
			e.get("/api/records/not-an-id/suggestions").want(t, 400)
			e.get("/api/records/"+string(core.NewID())+"/suggestions").want(t, 404)
			// Another workspace's record is as unknown as one that never existed.
			r := e.do(req{method: "GET", path: "/api/records/" + string(dark.ID) + "/suggestions", key: e.otherKey}).want(t, 404)
			if code := r.errorCode(t); code != "record not found" {
				t.Errorf("other workspace: %q", code)
			}
			if items := e.suggest(t, objective.ID, ""); len(items) != 0 {
				t.Errorf("an objective got suggestions: %v", titles(items))
			}
		})
	})
}
