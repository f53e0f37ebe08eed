package sqlite

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/feedbridge/feedbridge/core"
)

func contactRecord(email, name string) core.NewRecord {
	now := time.Now()
	return core.NewRecord{ID: core.NewID(), Type: core.RecordFeedback, Title: "t", SearchText: "t", Status: core.StatusTriage,
		Source: "CSV", CreatedAt: now, UpdatedAt: now,
		Contact: &core.ContactRef{Email: email, EmailKey: email, Name: name, Domain: "acme.com", CompanyName: "Acme"}}
}

// TestResolvedCacheFollowsCommits checks the cross-transaction contact cache: a contact created by a
// write that was rolled back is not remembered, and a contact's name filled in by another process (the
// CLI next to the daemon) is not overwritten by this one's stale entry.
func TestResolvedCacheFollowsCommits(t *testing.T) {
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "cache.db")
	st := openT(t, path)
	ws := core.Workspace{ID: core.NewID(), Name: "c", Plan: core.PlanBusiness, CreatedAt: time.Now()}
	if err := st.CreateWorkspace(ctx, ws); err != nil {
		t.Fatal(err)
	}
	bad := contactRecord("x@acme.com", "")
	bad.TagIDs = []core.ID{core.NewID()} // unknown: the whole batch fails after resolving the contact
	if _, err := st.CreateRecords(ctx, ws.ID, []core.NewRecord{contactRecord("a@acme.com", ""), bad}); err == nil {
		t.Fatal("a batch naming an unknown tag was written")
	}
	rec, _, err := st.CreateRecord(ctx, ws.ID, contactRecord("a@acme.com", ""))
	if err != nil {
		t.Fatalf("a contact of a rolled-back batch was remembered: %v", err)
	}
	var n int
	if err := st.w.QueryRowContext(ctx, `SELECT count(*) FROM contacts WHERE id = ?`, rec.ContactID).Scan(&n); err != nil || n != 1 {
		t.Fatalf("record's contact %s: %d rows, %v", rec.ContactID, n, err)
	}

	other, err := Open(ctx, path) // another process on the same file
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := other.CreateRecord(ctx, ws.ID, contactRecord("a@acme.com", "Ann Other")); err != nil {
		t.Fatal(err)
	}
	other.Close()
	if _, _, err := st.CreateRecord(ctx, ws.ID, contactRecord("a@acme.com", "Ann Stale")); err != nil {
		t.Fatal(err)
	}
	var name string
	if err := st.w.QueryRowContext(ctx, `SELECT name FROM contacts WHERE email_key = 'a@acme.com'`).Scan(&name); err != nil {
		t.Fatal(err)
	}
	if name != "Ann Other" {
		t.Fatalf("contact name %q: the stale cache overwrote the name another process filled in", name)
	}
}
