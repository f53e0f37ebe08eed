package api

import (
	"net/url"
	"reflect"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/feedbridge/feedbridge/core"
)

// Record objects and GET /records.

func TestRecordShapes(t *testing.T) {
	eachStore(t, func(t *testing.T, open opener) {
		e := newEnv(t, open, envOpts{})
		for _, c := range []struct {
			typ     core.RecordType
			has     []string
			hasNot  []string
			listing string
		}{
			{core.RecordIdea, []string{"accounts"}, []string{"release", "timeframe"}, "Idea"},
			{core.RecordFeedback, []string{"accounts"}, []string{"release", "timeframe"}, "feedback"},
			{core.RecordFeature, []string{"release"}, []string{"accounts", "timeframe"}, "FEATURE"},
			{core.RecordObjective, []string{"timeframe"}, []string{"accounts", "release"}, "objective"},
		} {
			t.Run(string(c.typ), func(t *testing.T) {
				sub := core.Submission{Type: c.typ, Title: "A " + string(c.typ)}
				switch c.typ {
				case core.RecordFeature:
					sub.Release = "2027.1"
				case core.RecordObjective:
					sub.Timeframe = "Q3 2027"
				}
				rec := e.submit(e.ws.ID, sub)
				var list []map[string]any
				e.get("/api/records?record_type="+c.listing).want(t, 200).decode(t, &list)
				if len(list) != 1 || list[0]["id"] != string(rec.ID) {
					t.Fatalf("listing %v", list)
				}
				one := e.get("/api/records/"+string(rec.ID)).want(t, 200).object(t)
				for _, m := range []map[string]any{list[0], one} {
					for _, k := range c.has {
						if _, ok := m[k]; !ok {
							t.Errorf("no %q on %s", k, c.typ)
						}
					}
					if v, ok := m["release"]; ok && v != "2027.1" {
						t.Errorf("release = %#v, want the stored 2027.1", v)
					}
					if v, ok := m["timeframe"]; ok && v != "Q3 2027" {
						t.Errorf("timeframe = %#v, want the stored Q3 2027", v)
					}
					for _, k := range c.hasNot {
						if _, ok := m[k]; ok {
							t.Errorf("%q on %s", k, c.typ)
						}
					}
					// Absent strings are "", empty arrays [], never null.
					for _, k := range []string{"assignee", "product", "customer", "customer_email", "description", "reporter"} {
						if m[k] != "" {
							t.Errorf("%s = %#v, want \"\"", k, m[k])
						}
					}
					if !reflect.DeepEqual(m["tags"], []any{}) {
						t.Errorf("tags = %#v", m["tags"])
					}
				}
			})
		}
	})
}

func TestListFilters(t *testing.T) {
	eachStore(t, func(t *testing.T, open opener) {
		e := newEnv(t, open, envOpts{})
		day := func(d int, h int) time.Time { return time.Date(2026, 3, d, h, 0, 0, 0, time.UTC) }
		pricing, bug, onb := label(t, e.tags, "Pricing"), label(t, e.tags, "Bug"), label(t, e.tags, "onboarding")
		web, mobile := label(t, e.products, "web"), label(t, e.products, "Mobile")
		mk := func(title, desc string, at time.Time, product, user core.ID, tags ...core.ID) string {
			return string(e.submit(e.ws.ID, core.Submission{Title: title, Description: desc, CreatedAt: at, ProductID: product, AssigneeID: user, TagIDs: tags}).ID)
		}
		a := mk("Straße zum Erfolg", "", day(1, 0), web, e.users[0].ID, pricing, bug)
		b := mk("Plain", "ΣΊΣΥΦΟΣ rolls the STONE", day(2, 12), mobile, e.users[1].ID, pricing)
		c := mk("Third", "café au lait", day(3, 23), web, "", bug, onb, pricing)
		d := mk("Fourth", "", day(4, 1), "", e.users[0].ID)
		e.submit(e.other.ID, core.Submission{Title: "Other workspace's Straße", CreatedAt: day(2, 0)})
		q := func(query string) []string {
			t.Helper()
			return e.listAll("/api/records?" + query)
		}
		cases := []struct {
			query string
			want  []string
		}{
			{"", []string{d, c, b, a}},
			{"sort=desc", []string{d, c, b, a}},
			{"sort=ASC", []string{a, b, c, d}},
			{"search=STRASSE", []string{a}},
			{"search=" + url.QueryEscape("σίσυφος"), []string{b}},
			{"search=stone", []string{b}},
			{"search=" + url.QueryEscape("CAFÉ"), []string{c}},
			{"search=nothing-like-this", nil},
			{"created_from=2026-03-02", []string{d, c, b}},
			{"created_to=2026-03-03", []string{c, b, a}},
			{"created_from=2026-03-02&created_to=2026-03-03", []string{c, b}},
			{"created_from=" + url.QueryEscape("2026-03-02T14:00:00+02:00"), []string{d, c, b}}, // 12:00Z, inclusive
			{"created_to=" + url.QueryEscape("2026-03-02T11:59:59.999Z"), []string{a}},
			{"updated_since=2000-01-01", []string{d, c, b, a}},
			{"product=" + string(web), []string{c, a}},
			{"product=" + string(mobile) + "&record_type=idea", []string{b}},
			{"user=" + string(e.users[0].ID), []string{d, a}},
			{"tags=" + string(pricing), []string{c, b, a}},
			{"tags=" + string(pricing) + "&tags=" + string(bug), []string{c, a}},
			{"tags=" + string(pricing) + "&tags=" + string(bug) + "&tags=" + string(onb), []string{c}},
			{"tags=" + string(bug) + "&product=" + string(web) + "&user=" + string(e.users[0].ID), []string{a}},
			{"product=" + string(e.other.ID), nil}, // an id of nothing, or of another workspace: no match
		}
		for _, tc := range cases {
			t.Run(tc.query, func(t *testing.T) {
				if got := q(tc.query); !reflect.DeepEqual(got, tc.want) {
					t.Errorf("got %v, want %v", got, tc.want)
				}
			})
		}
		// updated_since excludes what was not updated since then.
		if got := q("updated_since=" + url.QueryEscape(time.Now().Add(time.Hour).UTC().Format(time.RFC3339))); len(got) != 0 {
			t.Errorf("updated_since in the future: %v", got)
		}
	})
}

func TestListBadParameters(t *testing.T) {
	eachStore(t, func(t *testing.T, open opener) {
		e := newEnv(t, open, envOpts{})
		cases := []struct{ query, code string }{
			{"foo=1", `unknown query parameter "foo"`},
			{"Search=x", `unknown query parameter "Search"`},
			{"tag=6b02aa68e620474649935e43", `unknown query parameter "tag"`},
			{"limit=5&limit=6", `repeated query parameter "limit"`},
			{"sort=asc&sort=desc", `repeated query parameter "sort"`},
			{"sort=sideways", "invalid sort"},
			{"record_type=Bogus", "invalid record_type"},
			{"limit=0", "invalid limit"},
			{"limit=1001", "invalid limit"},
			{"limit=ten", "invalid limit"},
			{"limit=-1", "invalid limit"},
			{"cursor=never-issued", "invalid cursor"},
			{"cursor=" + strings.Repeat("A", 54), "invalid cursor"},
			{"created_from=yesterday", "invalid created_from"},
			{"created_to=2026-13-01", "invalid created_to"},
			{"updated_since=2026-02-30", "invalid updated_since"},
			{"created_from=2026-03-01T10:00:00", "invalid created_from"}, // no offset
			{"product=123", "invalid product id"},
			{"user=6B02AA68E620474649935E43", "invalid user id"},
			{"tags=xyz", "invalid tag id"},
			{"record_type=Objective&product=6b02aa68e620474649935e43", "product filter does not apply to Objective"},
			{"search=%zz", "invalid query string"},
			{"a=1;b=2", "invalid query string"},
		}
		for _, c := range cases {
			t.Run(c.query, func(t *testing.T) {
				r := e.get("/api/records?"+c.query).want(t, 400)
				if got := r.errorCode(t); got != c.code {
					t.Errorf("error %q, want %q", got, c.code)
				}
			})
		}
		// Other endpoints take no query parameters and say so.
		for _, p := range []string{"/api/records/verify", "/api/records/tags", "/api/records/product", "/api/records/users", "/api/imports", "/api/connectors"} {
			if r := e.get(p+"?x=1").want(t, 400); r.errorCode(t) != `unknown query parameter "x"` {
				t.Errorf("%s: error %q", p, r.errorCode(t))
			}
		}
	})
}

func TestPaging(t *testing.T) {
	eachStore(t, func(t *testing.T, open opener) {
		e := newEnv(t, open, envOpts{})
		// 25 records, several sharing one millisecond so that ties are broken by id.
		at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
		var recs []core.Record
		for i := 0; i < 25; i++ {
			recs = append(recs, e.submit(e.ws.ID, core.Submission{Title: sprintf("r%02d findme", i), CreatedAt: at.Add(time.Duration(i/5) * time.Second)}))
		}
		sort.Slice(recs, func(i, j int) bool {
			if !recs[i].CreatedAt.Equal(recs[j].CreatedAt) {
				return recs[i].CreatedAt.Before(recs[j].CreatedAt)
			}
			return recs[i].ID < recs[j].ID
		})
		var all []string
		for _, r := range recs {
			all = append(all, string(r.ID))
		}
		for _, limit := range []int{1, 4, 5, 7, 25, 26, 1000} {
			for _, dir := range []string{"asc", "desc"} {
				got := e.listAll(sprintf("/api/records?sort=%s&limit=%d&search=findme", dir, limit))
				want := append([]string(nil), all...)
				if dir == "desc" {
					for i, j := 0, len(want)-1; i < j; i, j = i+1, j-1 {
						want[i], want[j] = want[j], want[i]
					}
				}
				if !reflect.DeepEqual(got, want) {
					t.Errorf("limit %d %s: got %v", limit, dir, got)
				}
			}
		}
		// Exactly limit remaining records: that page is the last, with neither Link nor X-Next-Cursor.
		r := e.get("/api/records?limit=25").want(t, 200)
		if r.header.Get("Link") != "" || r.header.Get("X-Next-Cursor") != "" {
			t.Errorf("last page carries Link %q", r.header.Get("Link"))
		}
		r = e.get("/api/records?limit=20&sort=asc").want(t, 200)
		next := nextPath(t, r)
		// The Link keeps the query and adds the cursor.
		u, err := url.Parse(next)
		must(t, err)
		if u.Path != "/api/records" || u.Query().Get("limit") != "20" || u.Query().Get("sort") != "asc" {
			t.Errorf("Link target %q", next)
		}
		var page []map[string]any
		e.get(next).want(t, 200).decode(t, &page)
		if len(page) != 5 {
			t.Errorf("second page has %d", len(page))
		}
		// A cursor belongs to its listing: reused with other filters, or by another workspace, it is refused.
		cur := r.header.Get("X-Next-Cursor")
		e.get("/api/records?limit=20&sort=desc&cursor="+cur).want(t, 400)
		e.get("/api/records?record_type=Feedback&limit=20&sort=asc&cursor="+cur).want(t, 400)
		e.do(req{method: "GET", path: "/api/records?limit=20&sort=asc&cursor=" + cur, key: e.otherKey}).want(t, 400)
		// Default page size is 100.
		for i := 0; i < 80; i++ {
			e.submit(e.ws.ID, core.Submission{Title: "bulk"})
		}
		var first []any
		r = e.get("/api/records").want(t, 200)
		r.decode(t, &first)
		if len(first) != 100 || r.header.Get("Link") == "" {
			t.Errorf("default page: %d records, Link %q", len(first), r.header.Get("Link"))
		}
	})
}

// TestPagingWhileInserting walks every page while records keep arriving. Every record that existed before
// the walk must be seen exactly once; new ones may or may not appear (ascending: they do, at the end).
func TestPagingWhileInserting(t *testing.T) {
	eachStore(t, func(t *testing.T, open opener) {
		e := newEnv(t, open, envOpts{})
		before := map[string]bool{}
		for i := 0; i < 60; i++ {
			before[e.post("/api/records/idea", map[string]any{"title": sprintf("before %d", i)}).want(t, 201).object(t)["id"].(string)] = true
		}
		for _, dir := range []string{"desc", "asc"} {
			t.Run(dir, func(t *testing.T) {
				var stop atomic.Bool
				var wg sync.WaitGroup
				wg.Add(1)
				go func() {
					defer wg.Done()
					for i := 0; !stop.Load(); i++ {
						e.submit(e.ws.ID, core.Submission{Title: sprintf("during %d", i)})
						time.Sleep(5 * time.Millisecond)
					}
				}()
				got := e.listAll("/api/records?limit=7&sort=" + dir)
				stop.Store(true)
				wg.Wait()
				seen := map[string]int{}
				for _, id := range got {
					seen[id]++
					if seen[id] > 1 {
						t.Fatalf("record %s repeated", id)
					}
				}
				for id := range before {
					if seen[id] != 1 {
						t.Fatalf("record %s skipped", id)
					}
				}
			})
		}
	})
}
