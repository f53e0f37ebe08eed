package storetest

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/feedbridge/feedbridge/core"
)

var bulkTests = map[string]func(t *testing.T, f *fixture){
	"CreateRecords": func(t *testing.T, f *fixture) {
		ws := f.workspace("A", 1).ID
		tag := f.lookups(ws, core.LookupTag, "csv")[0]
		existing := f.submit(ws, core.Submission{Type: core.RecordFeedback, Title: "imported before", DedupKey: "row:7"}).Record
		created := time.Date(2024, 2, 29, 13, 0, 0, 0, time.UTC)
		subs := []core.Submission{
			{Type: core.RecordFeedback, Title: "one", Description: "Needs SSO.", CustomerEmail: "a@acme.com", TagIDs: []core.ID{tag}, DedupKey: "row:1", CreatedAt: created, Source: "csv"},
			{Type: core.RecordFeedback, Title: "", DedupKey: "row:2"}, // invalid: the service refuses it alone
			{Type: core.RecordFeedback, Title: "two", CustomerEmail: "b@ACME.com", DedupKey: "row:3"},
			{Type: core.RecordFeedback, Title: "one again", DedupKey: "row:1"},
			{Type: core.RecordFeedback, Title: "seen before", DedupKey: "row:7"},
			{Type: core.RecordIdea, Title: "idea, not counted", CountsAgainstLimit: true, Checkpoint: &core.Checkpoint{Name: "csv:nightly", Value: "file-1"}},
			{Type: core.RecordIdea, Title: "idea 2, not counted", CountsAgainstLimit: true},
		}
		res, err := f.svc.SubmitBatch(f.ctx, ws, subs)
		noErr(t, "submit batch", err)
		if res[1].Err == nil {
			t.Fatal("the blank title was accepted")
		}
		wantCreated := []bool{true, false, true, false, false, true, true}
		for i, r := range res {
			equal(t, fmt.Sprintf("item %d created", i), r.Created, wantCreated[i])
		}
		equal(t, "in-batch duplicate names the first", res[3].ID, res[0].ID)
		equal(t, "stored duplicate names the stored record", res[4].ID, existing.ID)

		one, err := f.st.Record(f.ctx, ws, res[0].ID)
		noErr(t, "read", err)
		equal(t, "bulk record", [6]string{one.Title, one.Description, one.Customer, one.Source, one.Tags[0], one.CreatedAt.String()},
			[6]string{"one", "Needs SSO.", "Acme", "CSV", "csv", created.String()})
		two, err := f.st.Record(f.ctx, ws, res[2].ID)
		noErr(t, "read", err)
		equal(t, "one company for the batch", two.CompanyID, one.CompanyID)
		equal(t, "feedback records", len(f.records(ws, core.RecordFeedback)), 3)
		equal(t, "ideas", len(f.records(ws, core.RecordIdea)), 2)
		w, err := f.st.Workspace(f.ctx, ws)
		noErr(t, "workspace", err)
		equal(t, "bulk ideas do not count", w.IdeasUsed, 0)
		cp, err := f.st.Checkpoint(f.ctx, ws, "csv:nightly")
		noErr(t, "checkpoint", err)
		equal(t, "checkpoint", cp, "file-1")
		jobs, err := f.st.ClaimInsightJobs(f.ctx, "w", 10, time.Minute)
		noErr(t, "claim", err)
		if len(jobs) != 1 || jobs[0].RecordID != res[0].ID {
			t.Fatalf("want one insight job for the feedback with a description, got %+v", jobs)
		}
	},
	"OneTransaction": func(t *testing.T, f *fixture) {
		a, b := f.workspace("A", 0).ID, f.workspace("B", 0).ID
		theirs := f.lookups(b, core.LookupTag, "theirs")[0]
		var rs []core.NewRecord
		for i := range 250 {
			sub := core.Submission{Type: core.RecordFeedback, Title: title(i), Description: "text", CustomerEmail: fmt.Sprintf("u%d@c%d.com", i, i%7)}
			if i == 200 {
				sub.TagIDs = []core.ID{theirs}
			}
			rs = append(rs, newRecord(t, f, sub))
		}
		rs[10].Checkpoint = &core.Checkpoint{Name: "cp", Value: "v"}
		_, err := f.st.CreateRecords(f.ctx, a, rs)
		wantUnknownID(t, err, "tag", theirs)
		equal(t, "nothing of the batch is written", len(f.records(a, core.RecordFeedback)), 0)
		cs, err := f.st.Companies(f.ctx, a)
		noErr(t, "companies", err)
		equal(t, "no companies", len(cs), 0)
		cp, err := f.st.Checkpoint(f.ctx, a, "cp")
		noErr(t, "checkpoint", err)
		equal(t, "no checkpoint", cp, "")
		depth, err := f.st.InsightQueueDepth(f.ctx)
		noErr(t, "depth", err)
		equal(t, "no jobs", depth, 0)

		rs[200].TagIDs = nil
		out, err := f.st.CreateRecords(f.ctx, a, rs)
		noErr(t, "create records", err)
		equal(t, "results", len(out), 250)
		equal(t, "all written", len(f.records(a, core.RecordFeedback)), 250)
		cs, err = f.st.Companies(f.ctx, a)
		noErr(t, "companies", err)
		equal(t, "seven companies", len(cs), 7)
		_, err = f.st.CreateRecords(f.ctx, core.NewID(), rs[:1])
		wantErr(t, "unknown workspace", err, core.ErrNotFound)
	},
}

// newRecord builds a NewRecord the way the service prepares one (core does not export that step), for tests
// that call the store directly; sub must be valid and its description plain text.
func newRecord(t *testing.T, f *fixture, sub core.Submission) core.NewRecord {
	t.Helper()
	created := f.clock.Now()
	if !sub.CreatedAt.IsZero() {
		created = sub.CreatedAt
	}
	nr := core.NewRecord{
		ID: core.NewIDAt(created), Type: sub.Type, Title: sub.Title, Description: sub.Description,
		DescriptionHTML: sub.Description, SearchText: core.Fold(sub.Title + "\n" + sub.Description), Status: core.StatusTriage,
		Source: core.NormalizeSource(sub.Source, ""), TagIDs: sub.TagIDs, DedupKey: sub.DedupKey, CreatedAt: created,
		UpdatedAt: f.clock.Now(), EnqueueInsight: sub.Type == core.RecordFeedback && sub.Description != "",
	}
	if sub.CustomerEmail != "" {
		domain, name, _ := core.NewCompanyResolver(nil, nil).Resolve(sub.CustomerEmail)
		nr.Contact = &core.ContactRef{Email: sub.CustomerEmail, EmailKey: strings.ToLower(sub.CustomerEmail), Domain: domain, CompanyName: name}
	}
	return nr
}
