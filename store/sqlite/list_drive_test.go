package sqlite

import (
	"fmt"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/feedbridge/feedbridge/core"
)

// TestListingDrivesAgree: a listing by tags or by a linked-to Idea returns the same records in the same
// order whether it starts from the tags' or the links' index entries (a rare set) or walks the listing's
// order testing each record (a common one), whether it reads a rare tag's records by id or tests their ids
// in order, and exactly the records that hold every filter; a search returns the same page whether it
// tests the listing's records by text first or walks the full-text index.
func TestListingDrivesAgree(t *testing.T) {
	ctx := t.Context()
	st, err := Open(ctx, filepath.Join(t.TempDir(), "drive.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ws := core.Workspace{ID: core.NewID(), Name: "drive", Plan: core.PlanBusiness, CreatedAt: time.Now()}
	if err := st.CreateWorkspace(ctx, ws); err != nil {
		t.Fatal(err)
	}
	tags, err := st.PutLookups(ctx, ws.ID, core.LookupTag, []string{"a", "b", "c"})
	if err != nil {
		t.Fatal(err)
	}
	a, b, c := tags[0].ID, tags[1].ID, tags[2].ID
	base := time.Now().Add(-time.Hour)
	idea := core.NewIDAt(base)
	batch := []core.NewRecord{{ID: idea, Type: core.RecordIdea, Title: "idea", Status: core.StatusTriage, Source: "API", CreatedAt: base, UpdatedAt: base}}
	const n = 300
	for i := range n {
		at := base.Add(time.Duration(i+1) * time.Second)
		r := core.NewRecord{ID: core.NewIDAt(at), Type: core.RecordFeedback, Title: fmt.Sprintf("r%d", i), Status: core.StatusTriage,
			Source: "API", CreatedAt: at, UpdatedAt: at.Add(time.Duration(i%7) * time.Minute)}
		if i%3 != 1 {
			r.Description = "export fails"
		}
		r.SearchText = core.Fold(r.Title + "\n" + r.Description)
		if i%2 == 0 {
			r.TagIDs = append(r.TagIDs, a)
		}
		if i%3 == 0 {
			r.TagIDs = append(r.TagIDs, b)
		}
		if i == 5 {
			r.TagIDs = append(r.TagIDs, c)
		}
		if i%4 == 0 {
			r.Contact = &core.ContactRef{Email: fmt.Sprintf("p%d@acme.example", i), EmailKey: fmt.Sprintf("p%d@acme.example", i),
				Domain: "acme.example", CompanyName: "Acme"}
		}
		batch = append(batch, r)
	}
	if _, err := st.CreateRecords(ctx, ws.ID, batch); err != nil {
		t.Fatal(err)
	}
	if err := st.FlushIndex(ctx); err != nil {
		t.Fatal(err)
	}
	// Every fifth Feedback is linked to the Idea.
	if _, err := st.w.ExecContext(ctx, `INSERT INTO record_links(workspace_id, feedback_id, target_id, created_at)
		SELECT workspace_id, id, ?, created_at FROM records WHERE type = 'Feedback' AND CAST(substr(title, 2) AS INTEGER) % 5 = 0`, idea); err != nil {
		t.Fatal(err)
	}
	var acme core.ID
	if err := st.w.QueryRowContext(ctx, `SELECT id FROM companies WHERE workspace_id = ?`, ws.ID).Scan(&acme); err != nil {
		t.Fatal(err)
	}
	from, to := base.Add(50*time.Second), base.Add(250*time.Second)
	cases := []struct {
		name string
		q    core.ListQuery
		want func(i int) bool
	}{
		{"tag", core.ListQuery{TagIDs: []core.ID{a}}, func(i int) bool { return i%2 == 0 }},
		{"two tags", core.ListQuery{TagIDs: []core.ID{a, b}}, func(i int) bool { return i%6 == 0 }},
		{"rare and common tag", core.ListQuery{TagIDs: []core.ID{c, b}}, func(i int) bool { return false }},
		{"rare tag", core.ListQuery{TagIDs: []core.ID{c}}, func(i int) bool { return i == 5 }},
		{"tag in window", core.ListQuery{TagIDs: []core.ID{b}, From: from, To: to}, func(i int) bool { return i%3 == 0 && i+1 >= 50 && i+1 <= 250 }},
		{"linked to", core.ListQuery{LinkedTo: idea}, func(i int) bool { return i%5 == 0 }},
		{"linked to and tag", core.ListQuery{LinkedTo: idea, TagIDs: []core.ID{a}}, func(i int) bool { return i%10 == 0 }},
		{"tag by update, ascending", core.ListQuery{TagIDs: []core.ID{a}, Order: core.OrderUpdated, Asc: true}, func(i int) bool { return i%2 == 0 }},
		{"search", core.ListQuery{Search: "export"}, func(i int) bool { return i%3 != 1 }},
		{"search and tag", core.ListQuery{Search: "export", TagIDs: []core.ID{a}}, func(i int) bool { return i%2 == 0 && i%3 != 1 }},
		{"search and rare tag", core.ListQuery{Search: "fails", TagIDs: []core.ID{c}}, func(i int) bool { return i == 5 }},
		{"search and tag in window, ascending", core.ListQuery{Search: "export", TagIDs: []core.ID{b}, From: from, To: to, Asc: true},
			func(i int) bool { return i%3 == 0 && i+1 >= 50 && i+1 <= 250 }},
		{"search and linked to", core.ListQuery{Search: "fails", LinkedTo: idea}, func(i int) bool { return i%5 == 0 && i%3 != 1 }},
		{"company", core.ListQuery{CompanyID: acme}, func(i int) bool { return i%4 == 0 }},
		{"company by update", core.ListQuery{CompanyID: acme, Order: core.OrderUpdated, Source: "API", UpdatedSince: from},
			func(i int) bool { return i%4 == 0 && i+1+(i%7)*60 >= 50 }},
		{"search, company and tag", core.ListQuery{Search: "export", CompanyID: acme, TagIDs: []core.ID{b}, Statuses: []string{core.StatusTriage}},
			func(i int) bool { return i%12 == 0 && i%3 != 1 }},
	}
	list := func(q core.ListQuery, max, scan, limit int) []core.ID {
		st.driveMax, st.scanMax = max, scan
		defer func() { st.driveMax, st.scanMax = driveMax, scanMax }()
		q.Type, q.Limit = core.RecordFeedback, limit
		recs, err := st.Records(ctx, ws.ID, q)
		if err != nil {
			t.Fatal(err)
		}
		ids := make([]core.ID, len(recs))
		for i, r := range recs {
			ids[i] = r.ID
		}
		return ids
	}
	for _, k := range cases {
		driven, walked := list(k.q, driveMax, 0, 1000), list(k.q, -1, 0, 1000)
		if !slices.Equal(driven, walked) {
			t.Errorf("%s: starting from the index gave %d records, walking the order %d, or another order", k.name, len(driven), len(walked))
		}
		st.lookupMax = -1 // the tags' records tested by id while walking the order, as for a larger set
		byOrder := list(k.q, driveMax, 0, 1000)
		st.lookupMax = lookupMax
		if !slices.Equal(driven, byOrder) {
			t.Errorf("%s: reading the tags' records by id gave %d records, testing their ids in order %d, or another order", k.name, len(driven), len(byOrder))
		}
		if k.q.Search != "" {
			// Testing the listing's records by text first, whether the page fills, the listing ends or
			// the budget runs out first, gives the full-text index's page.
			for _, limit := range []int{1000, 7, 2} {
				scanned, indexed := list(k.q, driveMax, 3, limit), list(k.q, driveMax, 0, limit)
				if !slices.Equal(scanned, indexed) {
					t.Errorf("%s, %d a page: testing the text first gave %d records, the full-text index %d, or another order",
						k.name, limit, len(scanned), len(indexed))
				}
			}
		}
		want := 0
		for i := range n {
			if k.want(i) {
				want++
			}
		}
		if len(driven) != want {
			t.Errorf("%s: %d records, want %d", k.name, len(driven), want)
		}
	}
}
