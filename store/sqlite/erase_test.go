package sqlite

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/feedbridge/feedbridge/core"
)

// TestForgetRewritesIndexedEntries erases a customer whose records are already in the full-text index (the
// conformance suite's are still queued), enough of them for many chunks and their merges, and checks that
// the index holds nothing of the old text and stays consistent with the records.
func TestForgetRewritesIndexedEntries(t *testing.T) {
	ctx := t.Context()
	st := openT(t, filepath.Join(t.TempDir(), "fts.db"))
	ws := core.Workspace{ID: core.NewID(), Name: "f", Plan: core.PlanBusiness, CreatedAt: time.Now()}
	if err := st.CreateWorkspace(ctx, ws); err != nil {
		t.Fatal(err)
	}
	const indexedN = 600
	var indexed []core.NewRecord
	for i := range indexedN {
		nr := contactRecord("zed@acme.com", "Zed Quux")
		nr.Title = fmt.Sprintf("Zed Quux asks %d", i)
		nr.SearchText = core.Fold(nr.Title + "\n")
		indexed = append(indexed, nr)
	}
	if _, err := st.CreateRecords(ctx, ws.ID, indexed); err != nil {
		t.Fatal(err)
	}
	if err := st.FlushIndex(ctx); err != nil {
		t.Fatal(err)
	}
	queued := contactRecord("zed@acme.com", "")
	queued.Title, queued.SearchText = "zed quux again", core.Fold("zed quux again\n")
	if _, _, err := st.CreateRecord(ctx, ws.ID, queued); err != nil {
		t.Fatal(err)
	}
	got, err := st.ForgetContact(ctx, ws.ID, core.Erasure{Email: "zed@acme.com", EmailKey: "zed@acme.com"})
	if err != nil || got != (core.Forgotten{Records: indexedN + 1, Contacts: 1}) {
		t.Fatalf("forget: %+v, %v", got, err)
	}
	for _, step := range []string{"before the drain", "after the drain"} {
		t.Run(step, func(t *testing.T) {
			var n int
			if err := st.w.QueryRowContext(ctx, `SELECT count(*) FROM records_fts WHERE records_fts MATCH 'quu'`).Scan(&n); err != nil {
				t.Fatal(err)
			}
			if n != 0 {
				t.Fatalf("the index still finds the old text in %d entries", n)
			}
			if _, err := st.w.ExecContext(ctx, `INSERT INTO records_fts(records_fts) VALUES ('integrity-check')`); err != nil {
				t.Fatalf("index out of step with the records: %v", err)
			}
			recs, err := st.Records(ctx, ws.ID, core.ListQuery{Type: core.RecordFeedback, Search: "removed", Limit: indexedN + 10})
			if err != nil || len(recs) != indexedN+1 {
				t.Fatalf("search for the new text: %d records, %v", len(recs), err)
			}
		})
		if err := st.FlushIndex(ctx); err != nil {
			t.Fatal(err)
		}
	}
	// The chunks turn FTS5's automatic merging off for their own entries only: the setting is back after.
	var automerge string
	if err := st.w.QueryRowContext(ctx, `SELECT v FROM records_fts_config WHERE k = 'automerge'`).Scan(&automerge); err != nil {
		t.Fatal(err)
	}
	if automerge != ftsAutomerge {
		t.Fatalf("automerge is %s after the erasure, want %s", automerge, ftsAutomerge)
	}
}

// TestForgetByAnotherProcess erases a contact from a second store on the same file (the CLI beside the
// daemon) after the first has remembered it: the first must not write the deleted contact's id again.
// Before the contacts epoch, the next write of that customer failed on the foreign key.
func TestForgetByAnotherProcess(t *testing.T) {
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "two.db")
	st := openT(t, path)
	ws := core.Workspace{ID: core.NewID(), Name: "p", Plan: core.PlanBusiness, CreatedAt: time.Now()}
	if err := st.CreateWorkspace(ctx, ws); err != nil {
		t.Fatal(err)
	}
	for _, bulk := range []bool{false, true} {
		write := func() (core.ID, error) {
			nr := contactRecord("amy@acme.com", "Amy")
			if bulk {
				_, err := st.CreateRecords(ctx, ws.ID, []core.NewRecord{nr})
				return nr.ID, err
			}
			rec, _, err := st.CreateRecord(ctx, ws.ID, nr)
			return rec.ID, err
		}
		if _, err := write(); err != nil {
			t.Fatal(err)
		}
		other, err := Open(ctx, path)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := other.ForgetContact(ctx, ws.ID, core.Erasure{Email: "amy@acme.com", EmailKey: "amy@acme.com"}); err != nil {
			t.Fatal(err)
		}
		other.Close()
		id, err := write()
		if err != nil {
			t.Fatalf("bulk %v: write after another process's erasure: %v", bulk, err)
		}
		rec, err := st.Record(ctx, ws.ID, id)
		if err != nil || rec.ContactID == "" || rec.CustomerEmail != "amy@acme.com" {
			t.Fatalf("bulk %v: record after erasure: %+v, %v", bulk, rec, err)
		}
	}
}

// TestForgetFindsFiledRecordsByAddress: erasure finds the records filed under a contact through the
// address index (no index of records by contact id is kept), falls back to the contact id for an address
// SQLite's lower does not fold, and leaves the contact without address or name.
func TestForgetFindsFiledRecordsByAddress(t *testing.T) {
	ctx := t.Context()
	st := openT(t, filepath.Join(t.TempDir(), "filed.db"))
	ws := core.Workspace{ID: core.NewID(), Name: "f", Plan: core.PlanBusiness, CreatedAt: time.Now()}
	if err := st.CreateWorkspace(ctx, ws); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"SELECT id FROM records WHERE ", "UPDATE records SET contact_id = NULL WHERE "} {
		filed, args := contactRecords(ws.ID, "c1", core.NewScrubber("Amy@Acme.com", ""))
		if got := queryPlan(t, st, q+filed, args...); !strings.Contains(got, "USING INDEX records_customer_listing") {
			t.Errorf("plan of %q: %s", q, got)
		}
	}

	for _, email := range []string{"Amy@Acme.com", "ÉMILE@acme.com"} {
		key := strings.ToLower(email)
		nr := contactRecord(email, "Amy")
		nr.Contact.EmailKey = key
		rec, _, err := st.CreateRecord(ctx, ws.ID, nr)
		if err != nil {
			t.Fatal(err)
		}
		f, err := st.ForgetContact(ctx, ws.ID, core.Erasure{Email: email, EmailKey: key})
		if err != nil || f.Contacts != 1 || f.Records != 1 {
			t.Fatalf("%s: forgotten %+v, %v", email, f, err)
		}
		got, err := st.Record(ctx, ws.ID, rec.ID)
		if err != nil || got.ContactID != "" || got.CustomerEmail != "" {
			t.Fatalf("%s: record after erasure: contact %q, address %q, %v", email, got.ContactID, got.CustomerEmail, err)
		}
		var addr, name, k string
		if err := st.w.QueryRowContext(ctx, `SELECT email, name, email_key FROM contacts WHERE id = ?`, rec.ContactID).
			Scan(&addr, &name, &k); err != nil || addr != "" || name != "" || strings.Contains(k, "@") {
			t.Fatalf("%s: erased contact %q %q %q, %v", email, addr, name, k, err)
		}
		if f, err := st.ForgetContact(ctx, ws.ID, core.Erasure{Email: email, EmailKey: key}); err != nil || f.Contacts != 0 {
			t.Fatalf("%s: second erasure %+v, %v", email, f, err)
		}
	}
}
