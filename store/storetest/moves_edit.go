package storetest

import (
	"testing"
	"time"

	"github.com/feedbridge/feedbridge/core"
)

var editTests = map[string]func(t *testing.T, f *fixture){
	"StatusInput": func(t *testing.T, f *fixture) {
		ws := f.workspace("A", 0).ID
		recs := map[core.RecordType]core.Record{}
		for _, typ := range []core.RecordType{core.RecordFeedback, core.RecordIdea, core.RecordFeature, core.RecordObjective} {
			recs[typ] = f.idea(ws, typ, "a "+string(typ), "")
		}
		for _, c := range []struct {
			typ   core.RecordType
			input string
			want  string // "" for refused
		}{
			{core.RecordIdea, "in progress", "In progress"},
			{core.RecordIdea, "InProgress", "In progress"},
			{core.RecordIdea, " UNDER review ", "Under review"},
			{core.RecordIdea, "Released", ""},
			{core.RecordIdea, "Merged", ""},
			{core.RecordFeedback, "archived", "Archived"},
			{core.RecordFeedback, "Done", ""},
			{core.RecordFeature, "released", "Released"},
			{core.RecordObjective, "achieved", "Achieved"},
			{core.RecordObjective, "Processed", ""},
		} {
			t.Run(string(c.typ)+"/"+c.input, func(t *testing.T) {
				rec, err := f.svc.Update(f.ctx, ws, recs[c.typ].ID, core.Patch{Status: str(c.input)}, "")
				if c.want == "" {
					wantField(t, "status", err, "status")
					return
				}
				noErr(t, "update", err)
				equal(t, "status", rec.Status, c.want)
			})
		}
	},
	"FieldsVersionAndNoop": func(t *testing.T, f *fixture) {
		ws := f.workspace("A", 0).ID
		tags := f.lookups(ws, core.LookupTag, "Bug", "Perf")
		prod := f.lookups(ws, core.LookupProduct, "Web")[0]
		user := f.user(ws, "Ada")
		rec := f.idea(ws, core.RecordIdea, "Old title", "")
		f.flushIndex()
		f.clock.Advance(time.Second)
		got := f.update(ws, rec.ID, core.Patch{Title: str("New title"), Description: str("<p>Some <b>text</b></p>"),
			Product: str(string(prod)), User: str(string(user)), Tags: &[]string{string(tags[1]), string(tags[0])}})
		equal(t, "fields", [5]string{got.Title, got.Description, got.Product, got.Assignee, got.DescriptionHTML},
			[5]string{"New title", "Some text", "Web", "Ada", "<p>Some <b>text</b></p>"})
		equal(t, "tags in order", got.Tags, []string{"Perf", "Bug"})
		equal(t, "updatedAt moved", got.UpdatedAt, f.clock.Now())
		if got.Version == rec.Version || core.ETag(got) == core.ETag(rec) {
			t.Fatalf("version did not move: %d", got.Version)
		}
		equal(t, "read back", f.read(ws, rec.ID), got)
		// The search finds the new title and no longer the old one, however its entry was indexed.
		equal(t, "search new", ids(f.list(ws, core.ListRequest{Search: "new title"}).Records), []core.ID{rec.ID})
		equal(t, "search old", len(f.list(ws, core.ListRequest{Search: "old title"}).Records), 0)

		f.clock.Advance(time.Second)
		same := f.update(ws, rec.ID, core.Patch{Title: str(" New title "), Status: str("triage"), Tags: &[]string{string(tags[1]), string(tags[0])}})
		equal(t, "no-op changes nothing", same, got)
		cleared := f.update(ws, rec.ID, core.Patch{Product: str(""), User: str(""), Tags: &[]string{}})
		equal(t, "cleared", [3]any{cleared.Product, cleared.Assignee, len(cleared.Tags)}, [3]any{"", "", 0})

		fb := f.feedback(ws, "fb", "")
		fb = f.update(ws, fb.ID, core.Patch{Importance: num(2)})
		equal(t, "importance", fb.Importance, 2)
		fb = f.update(ws, fb.ID, core.Patch{ClearImportance: true})
		equal(t, "importance cleared", fb.Importance, 0)
	},
	"Refusals": func(t *testing.T, f *fixture) {
		ws := f.workspace("A", 0).ID
		idea := f.idea(ws, core.RecordIdea, "idea", "")
		fb := f.feedback(ws, "fb", "")
		obj := f.idea(ws, core.RecordObjective, "obj", "")
		for _, c := range []struct {
			name  string
			id    core.ID
			p     core.Patch
			field string
		}{
			{"empty", idea.ID, core.Patch{}, "body"},
			{"importance on idea", idea.ID, core.Patch{Importance: num(1)}, "importance"},
			{"importance out of range", fb.ID, core.Patch{Importance: num(4)}, "importance"},
			{"release on idea", idea.ID, core.Patch{Release: str("v2")}, "release"},
			{"timeframe on feedback", fb.ID, core.Patch{Timeframe: str("Q1")}, "timeframe"},
			{"product on objective", obj.ID, core.Patch{Product: str(string(core.NewID()))}, "product"},
			{"customer on objective", obj.ID, core.Patch{CustomerEmail: str("a@b.com")}, "customer_email"},
			{"unknown tag", idea.ID, core.Patch{Tags: &[]string{string(core.NewID())}}, "tag"},
			{"unknown user", idea.ID, core.Patch{User: str(string(core.NewID()))}, "user"},
			{"blank title", idea.ID, core.Patch{Title: str("  ")}, "title"},
			{"bad email", fb.ID, core.Patch{CustomerEmail: str("Jane <j@a.com>")}, "customer_email"},
		} {
			t.Run(c.name, func(t *testing.T) {
				before := f.read(ws, c.id)
				_, err := f.svc.Update(f.ctx, ws, c.id, c.p, "")
				wantField(t, c.name, err, c.field)
				equal(t, "nothing changed", f.read(ws, c.id), before)
			})
		}
	},
	"IfMatch": func(t *testing.T, f *fixture) {
		ws := f.workspace("A", 0).ID
		rec := f.idea(ws, core.RecordIdea, "idea", "")
		etag := core.ETag(rec)
		got, err := f.svc.Update(f.ctx, ws, rec.ID, core.Patch{Title: str("one")}, etag)
		noErr(t, "matching If-Match", err)
		_, err = f.svc.Update(f.ctx, ws, rec.ID, core.Patch{Title: str("two")}, etag)
		wantErr(t, "stale If-Match", err, core.ErrPrecondition)
		equal(t, "nothing changed", f.read(ws, rec.ID), got)
	},
	"ConcurrentEditsOneWins": func(t *testing.T, f *fixture) {
		ws := f.workspace("A", 0).ID
		rec := f.idea(ws, core.RecordIdea, "idea", "")
		const n = 8
		ps := make([]core.Patch, n)
		for i := range ps {
			ps[i] = core.Patch{Title: str(title(i))}
		}
		won, stale := f.raceUpdates(t, ws, rec.ID, core.ETag(rec), ps)
		equal(t, "winners and refused", [2]int{won, stale}, [2]int{1, n - 1})
		equal(t, "one version step", f.read(ws, rec.ID).Version, rec.Version+1)
	},
	"Customer": func(t *testing.T, f *fixture) {
		ws := f.workspace("A", 0).ID
		fb := f.submit(ws, core.Submission{Type: core.RecordFeedback, Title: "fb", CustomerEmail: "jane@acme.com", CustomerName: "Jane"}).Record
		got := f.update(ws, fb.ID, core.Patch{CustomerEmail: str("bob@globex-corp.com")})
		equal(t, "regrouped", [3]string{got.CustomerEmail, got.Customer, got.CustomerName}, [3]string{"bob@globex-corp.com", "Globex Corp", ""})
		got = f.update(ws, fb.ID, core.Patch{CustomerName: str("Bob")})
		equal(t, "renamed", got.CustomerName, "Bob")
		got = f.update(ws, fb.ID, core.Patch{CustomerEmail: str("")})
		equal(t, "cleared", [3]string{got.CustomerEmail, got.Customer, got.CustomerName}, [3]string{"", "", ""})
		_, err := f.svc.Update(f.ctx, ws, fb.ID, core.Patch{CustomerName: str("Nobody")}, "")
		wantField(t, "name without address", err, "customer_name")
	},
}
