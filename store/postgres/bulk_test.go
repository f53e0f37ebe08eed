package postgres_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/feedbridge/feedbridge/core"
	"github.com/feedbridge/feedbridge/store/postgres/pgtest"
)

func TestCreateRecordsBulk(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := pgtest.Open(t)
	ws := workspace(t, st, 0)
	tags, err := st.PutLookups(ctx, ws.ID, core.LookupTag, []string{"Bug", "Billing"})
	if err != nil {
		t.Fatal(err)
	}
	contact := func(email, name string) *core.ContactRef {
		return &core.ContactRef{Email: email, EmailKey: core.Fold(email), Name: name, Domain: "acme.com", CompanyName: "Acme"}
	}
	mk := func(title, dedup string, c *core.ContactRef) core.NewRecord {
		nr := newRecord(title)
		nr.DedupKey, nr.Contact, nr.EnqueueInsight = dedup, c, true
		nr.TagIDs = []core.ID{tags[1].ID, tags[0].ID}
		nr.Checkpoint = &core.Checkpoint{Name: "csv:nightly", Value: title}
		return nr
	}
	first := []core.NewRecord{
		mk("one", "row-1", contact("Jane@Acme.com", "")),
		mk("two", "row-2", contact("jane@acme.com", "Jane")), // same contact, a name now
		mk("one again", "row-1", nil),                        // duplicate within the batch
		mk("no key", "", contact("bob@acme.com", "Bob")),
	}
	res, err := st.CreateRecords(ctx, ws.ID, first)
	if err != nil {
		t.Fatal(err)
	}
	want := []core.BulkResult{{ID: first[0].ID, Created: true}, {ID: first[1].ID, Created: true}, {ID: first[0].ID, Created: false}, {ID: first[3].ID, Created: true}}
	if fmt.Sprint(res) != fmt.Sprint(want) {
		t.Fatalf("results %v, want %v", res, want)
	}
	second := []core.NewRecord{mk("two later", "row-2", nil), mk("three", "row-3", nil)}
	res, err = st.CreateRecords(ctx, ws.ID, second)
	if err != nil {
		t.Fatal(err)
	}
	if want := []core.BulkResult{{ID: first[1].ID, Created: false}, {ID: second[1].ID, Created: true}}; fmt.Sprint(res) != fmt.Sprint(want) {
		t.Fatalf("second batch %v, want %v", res, want)
	}

	rec, err := st.Record(ctx, ws.ID, first[1].ID)
	if err != nil {
		t.Fatal(err)
	}
	if rec.Customer != "Acme" || rec.CustomerEmail != "jane@acme.com" || fmt.Sprint(rec.Tags) != "[Billing Bug]" {
		t.Errorf("record %+v: want customer Acme, email as given, tags in given order", rec)
	}
	one, _ := st.Record(ctx, ws.ID, first[0].ID)
	if one.ContactID != rec.ContactID || one.CompanyID != rec.CompanyID {
		t.Errorf("one address, two contacts or companies: %+v vs %+v", one, rec)
	}
	companies, _ := st.Companies(ctx, ws.ID)
	if len(companies) != 1 {
		t.Errorf("companies %v, want one Acme", companies)
	}
	if cp, _ := st.Checkpoint(ctx, ws.ID, "csv:nightly"); cp != "three" {
		t.Errorf("checkpoint %q, want the last row's", cp)
	}
	if n, _ := st.InsightQueueDepth(ctx); n != 4 {
		t.Errorf("queue depth %d, want one job per created record (4)", n)
	}

	t.Run("unknown tag writes nothing", func(t *testing.T) {
		bad := mk("bad", "row-bad", nil)
		bad.TagIDs = []core.ID{core.NewID()}
		_, err := st.CreateRecords(ctx, ws.ID, []core.NewRecord{mk("fine", "row-fine", nil), bad})
		var ve *core.ValidationError
		if !errors.As(err, &ve) || ve.Field != "tag" {
			t.Fatalf("got %v, want a validation error naming the tag", err)
		}
		recs, _ := st.Records(ctx, ws.ID, core.ListQuery{Type: core.RecordFeedback, Search: "fine", Limit: 10})
		if len(recs) != 0 {
			t.Errorf("a failed batch left %d records", len(recs))
		}
	})
	t.Run("another workspace's dedup keys are its own", func(t *testing.T) {
		other := workspace(t, st, 0)
		nr := mk("one", "row-1", nil)
		var ve *core.ValidationError
		if _, err := st.CreateRecords(ctx, other.ID, []core.NewRecord{nr}); !errors.As(err, &ve) {
			t.Errorf("tags of another workspace: %v, want a validation error", err)
		}
		nr.TagIDs = nil
		res, err := st.CreateRecords(ctx, other.ID, []core.NewRecord{nr})
		if err != nil || !res[0].Created {
			t.Errorf("got %v %v, want created", res, err)
		}
	})
}
