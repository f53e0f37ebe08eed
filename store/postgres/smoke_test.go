package postgres_test

import (
	"context"
	"testing"
	"time"

	"github.com/feedbridge/feedbridge/core"
	"github.com/feedbridge/feedbridge/store/postgres/pgtest"
)

func TestSmoke(t *testing.T) {
	st := pgtest.Open(t)
	ctx := context.Background()
	svc := core.NewService(st, core.Options{})
	ws, err := svc.CreateWorkspace(ctx, "Acme", core.PlanPro, 2)
	if err != nil {
		t.Fatal(err)
	}
	tags, err := svc.AddLookups(ctx, ws.ID, core.LookupTag, []string{"Bug", "bug", "UI"})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("tags %+v", tags)
	res, err := svc.Submit(ctx, ws.ID, core.Submission{Type: core.RecordIdea, Title: "Straße <b>x</b>", Description: "<p>Hello</p>",
		CustomerEmail: "Jane@Acme.co.uk", CustomerName: "Jane", TagIDs: []core.ID{tags[1].ID, tags[0].ID}, CountsAgainstLimit: true})
	if err != nil {
		t.Fatal(err)
	}
	got, err := st.Record(ctx, ws.ID, res.Record.ID)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("created %+v\nread    %+v", res.Record, got)
	page, err := svc.List(ctx, ws.ID, core.ListRequest{Search: "STRASSE"})
	if err != nil || len(page.Records) != 1 {
		t.Fatalf("list %v %v", page, err)
	}
	out, err := st.CreateRecords(ctx, ws.ID, []core.NewRecord{
		{ID: core.NewID(), Type: core.RecordFeedback, Title: "a", SearchText: "a", Status: "Triage", Source: "CSV", DedupKey: "k1", CreatedAt: time.Now(), UpdatedAt: time.Now(), EnqueueInsight: true,
			Contact: &core.ContactRef{Email: "bob@acme.co.uk", EmailKey: "bob@acme.co.uk", Domain: "acme.co.uk", CompanyName: "Acme"}},
		{ID: core.NewID(), Type: core.RecordFeedback, Title: "b", SearchText: "b", Status: "Triage", Source: "CSV", DedupKey: "k1", CreatedAt: time.Now(), UpdatedAt: time.Now()},
	})
	t.Logf("bulk %+v %v", out, err)
	jobs, err := st.ClaimInsightJobs(ctx, "w1", 10, time.Minute)
	t.Logf("jobs %+v %v", jobs, err)
	ok, err := st.TryAcquire(ctx, "x", "a", time.Second)
	ok2, err2 := st.TryAcquire(ctx, "x", "b", time.Second)
	t.Log(ok, err, ok2, err2)
}
