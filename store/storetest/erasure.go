package storetest

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/feedbridge/feedbridge/core"
)

// jane is the customer the erasure tests erase.
const (
	janeEmail = "Jane.Roe@Acme.com"
	janeName  = "Jane Roe"
)

// janeFeedback files a feedback under jane with the given text and dedup key.
func (f *fixture) janeFeedback(ws core.ID, title, desc, key string) core.Record {
	f.t.Helper()
	return f.submit(ws, core.Submission{Type: core.RecordFeedback, Title: title, Description: desc, CustomerEmail: janeEmail,
		CustomerName: janeName, DedupKey: key}).Record
}

func (f *fixture) forget(ws core.ID, email string) core.Forgotten {
	f.t.Helper()
	out, err := f.svc.ForgetContact(f.ctx, ws, email)
	if err != nil {
		f.t.Fatalf("forget %s: %v", email, err)
	}
	return out
}

func (f *fixture) record(ws, id core.ID) core.Record {
	f.t.Helper()
	r, err := f.st.Record(f.ctx, ws, id)
	if err != nil {
		f.t.Fatalf("record %s: %v", id, err)
	}
	return r
}

// searchIDs is what the store's search finds of q among ws's feedback.
func (f *fixture) searchIDs(ws core.ID, q string) []core.ID {
	f.t.Helper()
	recs, err := f.st.Records(f.ctx, ws, core.ListQuery{Type: core.RecordFeedback, Search: core.Fold(q), Limit: 1000})
	if err != nil {
		f.t.Fatalf("search %q: %v", q, err)
	}
	return ids(recs)
}

// mentions reports whether any text of r still quotes jane.
func mentions(r core.Record) bool {
	for _, s := range []string{r.Title, r.Description, r.DescriptionHTML, r.CustomerEmail, r.Reporter} {
		l := strings.ToLower(s)
		if strings.Contains(l, strings.ToLower(janeEmail)) || strings.Contains(l, strings.ToLower(janeName)) {
			return true
		}
	}
	return false
}

var erasureTests = map[string]func(t *testing.T, f *fixture){
	"ScrubsRecordsInsightsAndSearch": func(t *testing.T, f *fixture) {
		ws, other := f.workspace("A", 0).ID, f.workspace("B", 0).ID
		filed := f.janeFeedback(ws, "Export from JANE.ROE@acme.com fails", "<p>Jane Roe wrote: <b>slow</b></p>", "csv:x:1")
		quoted := f.feedback(ws, "Call jane roe back", "she is at jane.roe@acme.com.")
		unrelated := f.feedback(ws, "Mary Janet asks", "mary.jane.roe@acme.com")
		theirs := f.janeFeedback(other, "Jane Roe in B", "jane.roe@acme.com", "csv:x:1")
		jobs := f.claim("w", 10, time.Minute)
		for _, j := range jobs {
			if j.RecordID == filed.ID {
				noErr(t, "complete", f.st.CompleteInsightJob(f.ctx, j, "w", []core.Insight{{Kind: "problem",
					Summary: "Jane Roe finds export slow", Quote: "jane.roe@acme.com: slow", Sentiment: "negative",
					Themes: []string{"export"}, Tags: []string{}, Extractor: "builtin"}}))
			}
		}

		got := f.forget(ws, "jane.roe@ACME.com")
		equal(t, "answer", got, core.Forgotten{Records: 2, Contacts: 1})

		r := f.record(ws, filed.ID)
		equal(t, "filed title", r.Title, "Export from [removed] fails")
		equal(t, "filed description", r.Description, "[removed] wrote: slow")
		equal(t, "filed customer_email", r.CustomerEmail, "")
		equal(t, "filed contact", r.ContactID, core.ID(""))
		if mentions(r) {
			t.Fatalf("filed record still quotes her: %+v", r)
		}
		if !r.UpdatedAt.After(filed.UpdatedAt) && !r.UpdatedAt.Equal(filed.UpdatedAt) {
			t.Fatalf("updatedAt went back: %v < %v", r.UpdatedAt, filed.UpdatedAt)
		}
		q := f.record(ws, quoted.ID)
		equal(t, "quoted title", q.Title, "Call [removed] back")
		equal(t, "quoted description", q.Description, "she is at [removed].")
		equal(t, "unrelated stays", f.record(ws, unrelated.ID).Description, "mary.jane.roe@acme.com")
		equal(t, "other workspace untouched", f.record(other, theirs.ID).CustomerEmail, janeEmail)

		ins, err := f.st.Insights(f.ctx, ws, filed.ID)
		noErr(t, "insights", err)
		if len(ins) != 1 || ins[0].Summary != "[removed] finds export slow" || ins[0].Quote != "[removed]: slow" {
			t.Fatalf("insights not scrubbed: %+v", ins)
		}
		for _, s := range []string{"Jane Roe", "JANE ROE", "from jane"} {
			sameSet(t, "search "+s, f.searchIDs(ws, s), nil)
		}
		// Only the other person's address still has hers inside it.
		sameSet(t, "search her address", f.searchIDs(ws, "JANE.roe@acme.com"), []core.ID{unrelated.ID})
		sameSet(t, "search in the other workspace", f.searchIDs(other, "jane roe"), []core.ID{theirs.ID})
		sameSet(t, "search for the new text", f.searchIDs(ws, "[removed]"), []core.ID{filed.ID, quoted.ID})

		equal(t, "again changes nothing", f.forget(ws, janeEmail), core.Forgotten{})
		equal(t, "her records stay", len(f.records(ws, core.RecordFeedback)), 3)
	},
	"ScrubsHistory": func(t *testing.T, f *fixture) {
		ws := f.workspace("A", 0).ID
		other := f.feedback(ws, "Export is slow", "from a colleague")
		// Her address and name reach the history as the from/to values of edits.
		f.update(ws, other.ID, core.Patch{Title: str("Export is slow for Jane Roe"), CustomerEmail: str(janeEmail),
			CustomerName: str(janeName)})
		f.update(ws, other.ID, core.Patch{Title: str("Export is slow")})
		before := historyText(t, f, ws, other.ID)
		if !strings.Contains(before, "Jane Roe") || !strings.Contains(strings.ToLower(before), strings.ToLower(janeEmail)) {
			t.Fatalf("the history should quote her before the erasure: %s", before)
		}
		f.forget(ws, janeEmail)
		after := historyText(t, f, ws, other.ID)
		if l := strings.ToLower(after); strings.Contains(l, "jane roe") || strings.Contains(l, strings.ToLower(janeEmail)) {
			t.Fatalf("the history still quotes her: %s", after)
		}
		if !strings.Contains(after, "[removed]") {
			t.Fatalf("the history should say [removed] where she was: %s", after)
		}
	},
	"RedeliveryStaysDuplicate": func(t *testing.T, f *fixture) {
		ws := f.workspace("A", 0).ID
		key := "email:<m1@acme.com> <" + strings.ToLower(janeEmail) + ">"
		first := f.janeFeedback(ws, "Hello", "from jane", key)
		bulkKey := "csv:hash:from-jane"
		res, err := f.svc.SubmitBatch(f.ctx, ws, []core.Submission{{Type: core.RecordFeedback, Title: "Row", CustomerEmail: janeEmail,
			DedupKey: bulkKey}})
		noErr(t, "bulk", err)
		equal(t, "forgotten", f.forget(ws, janeEmail).Records, 2)

		again := f.submit(ws, core.Submission{Type: core.RecordFeedback, Title: "Hello", Description: "from jane", CustomerEmail: janeEmail, DedupKey: key})
		equal(t, "single create is a duplicate", again.Created, false)
		equal(t, "of the first record", again.Record.ID, first.ID)
		out, err := f.svc.SubmitBatch(f.ctx, ws, []core.Submission{{Type: core.RecordFeedback, Title: "Row", CustomerEmail: janeEmail, DedupKey: bulkKey},
			{Type: core.RecordFeedback, Title: "Hello", CustomerEmail: janeEmail, DedupKey: key}})
		noErr(t, "bulk again", err)
		for i, r := range out {
			if r.Err != nil || r.Created {
				t.Fatalf("bulk row %d: created %v, err %v", i, r.Created, r.Err)
			}
		}
		equal(t, "bulk row's record", out[0].ID, res[0].ID)
		equal(t, "email's record", out[1].ID, first.ID)
		equal(t, "records", len(f.records(ws, core.RecordFeedback)), 2)
		// A new message of hers is a new record and a new contact.
		fresh := f.submit(ws, core.Submission{Type: core.RecordFeedback, Title: "New", CustomerEmail: janeEmail, CustomerName: janeName,
			DedupKey: "email:<m2@acme.com> <jane.roe@acme.com>"})
		equal(t, "new message created", fresh.Created, true)
		if fresh.Record.ContactID == "" || fresh.Record.ContactID == first.ContactID {
			t.Fatalf("new message's contact %q (old %q)", fresh.Record.ContactID, first.ContactID)
		}
		out, err = f.svc.SubmitBatch(f.ctx, ws, []core.Submission{{Type: core.RecordFeedback, Title: "Bulk new", CustomerEmail: janeEmail}})
		noErr(t, "bulk after erasure", err)
		if out[0].Err != nil || !out[0].Created {
			t.Fatalf("bulk after erasure: %+v", out[0])
		}
	},
	"CompanyStays": func(t *testing.T, f *fixture) {
		ws := f.workspace("A", 0).ID
		r := f.janeFeedback(ws, "Hi", "", "")
		f.forget(ws, janeEmail)
		cs, err := f.st.Companies(f.ctx, ws)
		noErr(t, "companies", err)
		if len(cs) != 1 || cs[0].Domain != "acme.com" {
			t.Fatalf("companies after erasure: %+v", cs)
		}
		equal(t, "record keeps its company", f.record(ws, r.ID).Customer, cs[0].Name)
	},
	"UnknownAddressAndWorkspace": func(t *testing.T, f *fixture) {
		ws := f.workspace("A", 0).ID
		r := f.feedback(ws, "Nothing about nobody@acme.com here", "")
		equal(t, "unknown address", f.forget(ws, "nobody@acme.com"), core.Forgotten{Records: 1})
		equal(t, "scrubbed", f.record(ws, r.ID).Title, "Nothing about [removed] here")
		_, err := f.svc.ForgetContact(f.ctx, core.NewID(), "nobody@acme.com")
		wantErr(t, "unknown workspace", err, core.ErrNotFound)
		_, err = f.svc.ForgetContact(f.ctx, ws, "Jane <jane@acme.com>")
		if ve, ok := err.(*core.ValidationError); !ok || ve.Field != "email" {
			t.Fatalf("display-name form: %v", err)
		}
	},
	"ManyRecordsInChunks": func(t *testing.T, f *fixture) {
		ws, other := f.workspace("A", 0).ID, f.workspace("B", 0).ID
		n := 3*core.EraseChunk + 7
		subs := make([]core.Submission, n)
		for i := range subs {
			subs[i] = core.Submission{Type: core.RecordFeedback, Title: fmt.Sprintf("note %d by Jane Roe", i), CustomerEmail: janeEmail,
				CustomerName: janeName, DedupKey: fmt.Sprintf("csv:hash:%d", i), PlainText: true}
		}
		_, err := f.svc.SubmitBatch(f.ctx, ws, subs)
		noErr(t, "bulk", err)
		equal(t, "forgotten", f.forget(ws, janeEmail), core.Forgotten{Records: n, Contacts: 1})
		for _, r := range f.records(ws, core.RecordFeedback) {
			if mentions(r) {
				t.Fatalf("record still quotes her: %+v", r)
			}
		}
		sameSet(t, "search", f.searchIDs(ws, "jane roe"), nil)
		// Another workspace writes while nothing of it is touched.
		f.janeFeedback(other, "B's", "", "")
		equal(t, "other workspace's contact stays", f.forget(other, janeEmail).Contacts, 1)
	},
}

// historyText is every change of a record's history, as text.
func historyText(t *testing.T, f *fixture, ws, id core.ID) string {
	t.Helper()
	hs, err := f.svc.History(f.ctx, ws, id)
	noErr(t, "history", err)
	return fmt.Sprint(hs)
}
