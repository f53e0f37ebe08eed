package postgres_test

import (
	"context"
	"testing"

	"github.com/feedbridge/feedbridge/core"
	"github.com/feedbridge/feedbridge/store/postgres"
	"github.com/feedbridge/feedbridge/store/postgres/pgtest"
)

// TestForgetByAnotherReplica erases a contact through a second store on the same database (another
// replica, or the CLI) after the first has remembered it in a bulk write: the first must not file new
// records under the deleted contact's id. Before the contacts epoch, the next import named a contact that
// no longer existed.
func TestForgetByAnotherReplica(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	u := pgtest.URL(t)
	open := func() *postgres.Store {
		st, err := postgres.Open(ctx, u)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		return st
	}
	st, other := open(), open()
	ws := workspace(t, st, 0)
	contact := &core.ContactRef{Email: "amy@acme.com", EmailKey: "amy@acme.com", Name: "Amy", Domain: "acme.com", CompanyName: "Acme"}
	write := func() core.ID {
		t.Helper()
		nr := newRecord("from amy")
		nr.Contact = contact
		if _, err := st.CreateRecords(ctx, ws.ID, []core.NewRecord{nr}); err != nil {
			t.Fatal(err)
		}
		return nr.ID
	}
	first := write()
	write() // remembered now
	if _, err := other.ForgetContact(ctx, ws.ID, core.Erasure{Email: "amy@acme.com", EmailKey: "amy@acme.com"}); err != nil {
		t.Fatal(err)
	}
	rec, err := st.Record(ctx, ws.ID, write())
	if err != nil {
		t.Fatal(err)
	}
	old, err := st.Record(ctx, ws.ID, first)
	if err != nil {
		t.Fatal(err)
	}
	if rec.ContactID == "" || rec.ContactID == old.ContactID || old.ContactID != "" {
		t.Fatalf("contact after erasure %q, erased record's %q", rec.ContactID, old.ContactID)
	}
	var n int
	if err := other.Pool().QueryRow(ctx, `SELECT count(*) FROM contacts WHERE workspace_id = $1 AND id = $2`, ws.ID, rec.ContactID).Scan(&n); err != nil || n != 1 {
		t.Fatalf("the new record's contact exists %d times, %v", n, err)
	}
}
