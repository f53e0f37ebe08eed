package storetest

import (
	"testing"

	"github.com/feedbridge/feedbridge/core"
)

var searchTests = map[string]func(t *testing.T, f *fixture){
	"UnicodeCaseInsensitiveSubstring": func(t *testing.T, f *fixture) {
		a, b := f.workspace("A", 0).ID, f.workspace("B", 0).ID
		street := f.feedback(a, "Straße closed", "")
		school := f.feedback(a, "ÉCOLE primaire", "")
		export := f.feedback(a, "Export", "The CSV export times out after 30 s.")
		greek := f.feedback(a, "ΣΊΣΥΦΟΣ", "<p>Ünïcode &amp; friends</p>")
		odd := f.feedback(a, `a "quote" and (parens) OR *star* NEAR:`, "100% of_users")
		f.feedback(b, "Straße closed", "ÉCOLE export")
		cases := []struct {
			search string
			want   []core.Record
		}{
			{"STRASSE", []core.Record{street}},
			{"straße", []core.Record{street}},
			{"ssE CLO", []core.Record{street}},
			{"école", []core.Record{school}},
			{"ÉCOLE", []core.Record{school}},
			{"Ecole", nil}, // folding is case only, not accents
			{"csv EXPORT", []core.Record{export}},
			{"export", []core.Record{export}},
			{"σίσυφος", []core.Record{greek}},
			{"ÜNÏCODE & FRIENDS", []core.Record{greek}},
			{"30", []core.Record{export}},
			{"é", []core.Record{school}},
			{"OR", []core.Record{export, odd}},
			{`"quote"`, []core.Record{odd}},
			{"(parens) or *star*", []core.Record{odd}},
			{"near:", []core.Record{odd}},
			{"100%", []core.Record{odd}},
			{"_", []core.Record{odd}},
			{"%", []core.Record{odd}},
			{"xyz", nil},
		}
		for _, c := range cases {
			t.Run(c.search, func(t *testing.T) {
				got := f.list(a, core.ListRequest{RecordType: "Feedback", Search: c.search}).Records
				sameSet(t, "found", ids(got), ids(c.want))
				direct, err := f.st.Records(f.ctx, a, core.ListQuery{Type: core.RecordFeedback, Search: core.Fold(c.search), Limit: 100})
				noErr(t, "store search", err)
				sameSet(t, "found by the store", ids(direct), ids(c.want))
			})
		}
	},
	"WithFilters": func(t *testing.T, f *fixture) {
		ws := f.workspace("A", 0).ID
		tag := f.lookups(ws, core.LookupTag, "t")[0]
		tagged := f.submit(ws, core.Submission{Type: core.RecordIdea, Title: "slow export", TagIDs: []core.ID{tag}}).Record
		f.submit(ws, core.Submission{Type: core.RecordIdea, Title: "slow import", TagIDs: []core.ID{tag}})
		f.submit(ws, core.Submission{Type: core.RecordIdea, Title: "slow export, untagged"})
		f.feedback(ws, "slow export feedback", "")
		got := f.list(ws, core.ListRequest{Search: "EXPORT", Tags: []string{string(tag)}}).Records
		equal(t, "search and tag", ids(got), []core.ID{tagged.ID})
	},
}
