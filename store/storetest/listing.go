package storetest

import (
	"errors"
	"testing"
	"time"

	"github.com/feedbridge/feedbridge/core"
)

// at submits a record of type t created at a given time.
func (f *fixture) at(ws core.ID, t core.RecordType, title string, created time.Time) core.Record {
	f.t.Helper()
	return f.submit(ws, core.Submission{Type: t, Title: title, CreatedAt: created}).Record
}

var listingTests = map[string]func(t *testing.T, f *fixture){
	"Type": func(t *testing.T, f *fixture) {
		ws := f.workspace("A", 0).ID
		i1 := f.submit(ws, core.Submission{Type: core.RecordIdea, Title: "i1"}).Record
		i2 := f.submit(ws, core.Submission{Type: core.RecordIdea, Title: "i2"}).Record
		fb := f.feedback(ws, "fb", "")
		ft := f.submit(ws, core.Submission{Type: core.RecordFeature, Title: "ft"}).Record
		cases := []struct {
			recordType string
			want       []core.ID
		}{
			{"", []core.ID{i1.ID, i2.ID}},
			{"idea", []core.ID{i1.ID, i2.ID}},
			{"Feedback", []core.ID{fb.ID}},
			{"FEATURE", []core.ID{ft.ID}},
			{"Objective", nil},
		}
		for _, c := range cases {
			t.Run(c.recordType, func(t *testing.T) {
				sameSet(t, "records", ids(f.list(ws, core.ListRequest{RecordType: c.recordType}).Records), c.want)
			})
		}
	},
	"CreatedRangeInclusive": func(t *testing.T, f *fixture) {
		ws := f.workspace("A", 0).ID
		day := time.Date(2025, 6, 10, 0, 0, 0, 0, time.UTC)
		r0 := f.at(ws, core.RecordIdea, "day before, last ms", day.Add(-time.Millisecond))
		r1 := f.at(ws, core.RecordIdea, "midnight", day)
		r2 := f.at(ws, core.RecordIdea, "noon", day.Add(12*time.Hour))
		r3 := f.at(ws, core.RecordIdea, "last ms", day.Add(24*time.Hour-time.Millisecond))
		r4 := f.at(ws, core.RecordIdea, "next day", day.Add(24*time.Hour))
		cases := []struct {
			name     string
			from, to string
			want     []core.Record
		}{
			{"date bounds cover the whole day", "2025-06-10", "2025-06-10", []core.Record{r1, r2, r3}},
			{"exact instants are inclusive", "2025-06-10T12:00:00Z", "2025-06-10T23:59:59.999Z", []core.Record{r2, r3}},
			{"offsets", "2025-06-10T01:59:59.999+02:00", "2025-06-10T02:00:00+02:00", []core.Record{r0, r1}},
			{"open start", "", "2025-06-09", []core.Record{r0}},
			{"open end", "2025-06-11", "", []core.Record{r4}},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				got := f.list(ws, core.ListRequest{CreatedFrom: c.from, CreatedTo: c.to, Sort: "asc"}).Records
				equal(t, "records", ids(got), ids(c.want))
			})
		}
	},
	"UpdatedSince": func(t *testing.T, f *fixture) {
		ws := f.workspace("A", 0).ID
		old := f.feedback(ws, "old", "")
		f.clock.Advance(time.Hour)
		since := f.clock.Now()
		newer := f.feedback(ws, "newer", "")
		got := f.list(ws, core.ListRequest{RecordType: "Feedback", UpdatedSince: since.Format(time.RFC3339Nano)}).Records
		equal(t, "updated since (inclusive)", ids(got), []core.ID{newer.ID})
		got = f.list(ws, core.ListRequest{RecordType: "Feedback", UpdatedSince: old.UpdatedAt.Format(time.RFC3339Nano), Sort: "asc"}).Records
		equal(t, "updated since the first", ids(got), []core.ID{old.ID, newer.ID})
	},
	"ProductUserTags": func(t *testing.T, f *fixture) {
		a, b := f.workspace("A", 0).ID, f.workspace("B", 0).ID
		tg := f.lookups(a, core.LookupTag, "t0", "t1", "t2")
		pr := f.lookups(a, core.LookupProduct, "p0", "p1")
		u0, u1 := f.user(a, "u0"), f.user(a, "u1")
		mk := func(name string, p, u core.ID, tags ...core.ID) core.ID {
			return f.submit(a, core.Submission{Type: core.RecordIdea, Title: name, ProductID: p, AssigneeID: u, TagIDs: tags}).Record.ID
		}
		x := mk("x", pr[0], u0, tg[0], tg[1])
		y := mk("y", pr[0], u1, tg[1], tg[2])
		z := mk("z", pr[1], "", tg[0], tg[1], tg[2])
		n := mk("n", "", "")
		s := func(ids ...core.ID) []string {
			out := make([]string, len(ids))
			for i, id := range ids {
				out[i] = string(id)
			}
			return out
		}
		cases := []struct {
			name string
			req  core.ListRequest
			want []core.ID
		}{
			{"product", core.ListRequest{Product: string(pr[0])}, []core.ID{x, y}},
			{"user", core.ListRequest{User: string(u1)}, []core.ID{y}},
			{"one tag", core.ListRequest{Tags: s(tg[0])}, []core.ID{x, z}},
			{"all of the tags", core.ListRequest{Tags: s(tg[1], tg[2])}, []core.ID{y, z}},
			{"three tags", core.ListRequest{Tags: s(tg[0], tg[1], tg[2])}, []core.ID{z}},
			{"product and tag", core.ListRequest{Product: string(pr[0]), Tags: s(tg[0])}, []core.ID{x}},
			{"unused product", core.ListRequest{Product: string(core.NewID())}, nil},
			{"none", core.ListRequest{}, []core.ID{x, y, z, n}},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				sameSet(t, "A", ids(f.list(a, c.req).Records), c.want)
				sameSet(t, "B sees none of A's", ids(f.list(b, c.req).Records), nil)
			})
		}
	},
	"Limit": func(t *testing.T, f *fixture) {
		ws := f.workspace("A", 0).ID
		for i := range 5 {
			f.at(ws, core.RecordIdea, title(i), time.Date(2025, 1, 1, 0, 0, i, 0, time.UTC))
		}
		recs, err := f.st.Records(f.ctx, ws, core.ListQuery{Type: core.RecordIdea, Limit: 3})
		noErr(t, "records", err)
		equal(t, "desc, limited", titles(recs), []string{title(4), title(3), title(2)})
		recs, err = f.st.Records(f.ctx, ws, core.ListQuery{Type: core.RecordIdea, Limit: 2, Asc: true})
		noErr(t, "records", err)
		equal(t, "asc, limited", titles(recs), []string{title(0), title(1)})
		p := f.list(ws, core.ListRequest{Limit: "5"})
		equal(t, "exactly limit records is the last page", p.Next, "")
	},
}

func titles(recs []core.Record) []string {
	out := make([]string, len(recs))
	for i, r := range recs {
		out[i] = r.Title
	}
	return out
}

var planningTests = map[string]func(t *testing.T, f *fixture){
	// A Feature's release and an Objective's timeframe are stored by both write paths and read back by the
	// listing and by Record; on another type either label is refused.
	"ReleaseAndTimeframe": func(t *testing.T, f *fixture) {
		ws := f.workspace("A", 0).ID
		ft := f.submit(ws, core.Submission{Type: core.RecordFeature, Title: "SSO", Release: " 2027.1 "})
		equal(t, "created feature's release", ft.Record.Release, "2027.1")
		res, err := f.svc.SubmitBatch(f.ctx, ws, []core.Submission{
			{Type: core.RecordObjective, Title: "Grow EU", Timeframe: "Q3 2027"},
			{Type: core.RecordFeature, Title: "Audit log", Release: "2027.2"},
			{Type: core.RecordFeedback, Title: "not a feature", Release: "2027.2"},
			{Type: core.RecordFeature, Title: "not an objective", Timeframe: "Q1"},
		})
		noErr(t, "submit batch", err)
		for _, i := range []int{2, 3} {
			var ve *core.ValidationError
			if !errors.As(res[i].Err, &ve) {
				t.Fatalf("item %d: want a validation error, got %v", i, res[i].Err)
			}
		}
		feats := f.list(ws, core.ListRequest{RecordType: "Feature", Sort: "asc"}).Records
		if len(feats) != 2 || feats[0].Release != "2027.1" || feats[1].Release != "2027.2" {
			t.Fatalf("features: %+v", feats)
		}
		obj, err := f.st.Record(f.ctx, ws, res[0].ID)
		noErr(t, "read objective", err)
		equal(t, "objective", [2]string{obj.Timeframe, obj.Release}, [2]string{"Q3 2027", ""})
	},
}
