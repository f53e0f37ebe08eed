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

// TestCreateRecordsBulkAcrossBatches follows one customer and one dedup key through successive batches of
// one store, which remembers the contacts and companies it resolved: a name given later still reaches the
// contact, a stored key met by a batch that did not look it up first still comes back as that record's
// duplicate, and the failed first try leaves nothing behind.
func TestCreateRecordsBulkAcrossBatches(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := pgtest.Open(t)
	ws := workspace(t, st, 0)
	mk := func(title, dedup, name string) core.NewRecord {
		nr := newRecord(title)
		nr.DedupKey, nr.EnqueueInsight = dedup, true
		nr.Contact = &core.ContactRef{Email: "Bob@Beta.io", EmailKey: "bob@beta.io", Name: name, Domain: "beta.io", CompanyName: "Beta"}
		return nr
	}
	write := func(rs ...core.NewRecord) []core.BulkResult {
		t.Helper()
		res, err := st.CreateRecords(ctx, ws.ID, rs)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	first := mk("one", "k1", "")
	write(first)
	write(mk("two", "k2", "Bob"))
	write(mk("three", "k3", "Robert"))
	again, fresh := mk("one again", "k1", ""), mk("four", "k4", "")
	res := write(again, fresh)
	if want := []core.BulkResult{{ID: first.ID}, {ID: fresh.ID, Created: true}}; fmt.Sprint(res) != fmt.Sprint(want) {
		t.Errorf("a batch meeting a stored key: %v, want %v", res, want)
	}
	if res := write(mk("five", "k5", "")); !res[0].Created {
		t.Errorf("the next batch: %v, want created", res)
	}

	var contacts, companies int
	var name string
	if err := st.Pool().QueryRow(ctx, `SELECT count(*), min(name), (SELECT count(*) FROM companies WHERE workspace_id = $1)
		FROM contacts WHERE workspace_id = $1`, ws.ID).Scan(&contacts, &name, &companies); err != nil {
		t.Fatal(err)
	}
	if contacts != 1 || companies != 1 || name != "Bob" {
		t.Errorf("%d contacts named %q, %d companies; want one Bob of one company", contacts, name, companies)
	}
	recs, err := st.Records(ctx, ws.ID, core.ListQuery{Type: core.RecordFeedback, Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 5 {
		t.Fatalf("%d records, want 5", len(recs))
	}
	for _, r := range recs {
		if r.ContactID != recs[0].ContactID || r.CompanyID != recs[0].CompanyID || r.ContactID == "" || r.Customer != "Beta" {
			t.Errorf("record %q filed under contact %q company %q (%q)", r.Title, r.ContactID, r.CompanyID, r.Customer)
		}
	}
	if n, _ := st.InsightQueueDepth(ctx); n != 5 {
		t.Errorf("queue depth %d, want one job per created record (5)", n)
	}
}
