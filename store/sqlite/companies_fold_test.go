package sqlite

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/feedbridge/feedbridge/core"
)

// TestCountsOfUncountedRecords: a create leaves its company's count to the fold, so records deleted or
// moved to another company before any fold must come out right, whether the next read folds, the
// indexer folds before it drains the queue, or a read-only store reads the uncounted records' share.
func TestCountsOfUncountedRecords(t *testing.T) {
	path := filepath.Join(t.TempDir(), "fold.db")
	st := openT(t, path)
	ctx := t.Context()
	svc := core.NewService(st, core.Options{})
	w, err := svc.CreateWorkspace(ctx, "A", core.PlanPro, 0)
	if err != nil {
		t.Fatal(err)
	}
	submit := func(email string) core.Record {
		t.Helper()
		res, err := svc.Submit(ctx, w.ID, core.Submission{Type: core.RecordFeedback, Title: "t", CustomerEmail: email})
		if err != nil {
			t.Fatal(err)
		}
		return res.Record
	}
	counts := func(st *Store) map[string]int {
		t.Helper()
		cs, err := st.CompanyList(ctx, w.ID, core.CompanyQuery{Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		m := map[string]int{}
		for i, c := range cs {
			m[c.Domain] = c.FeedbackCount
			if i > 0 && (c.FeedbackCount > cs[i-1].FeedbackCount || c.FeedbackCount == cs[i-1].FeedbackCount && c.ID < cs[i-1].ID) {
				t.Errorf("listing out of order: %+v", cs)
			}
			one, err := st.Company(ctx, w.ID, c.ID)
			if err != nil || one != c {
				t.Errorf("company %s: %+v, %v; listed %+v", c.Domain, one, err, c)
			}
		}
		all, err := st.Companies(ctx, w.ID)
		if err != nil || len(all) != len(cs) {
			t.Fatalf("companies: %+v, %v", all, err)
		}
		for _, c := range all {
			if m[c.Domain] != c.FeedbackCount {
				t.Errorf("companies: %s counts %d, listed %d", c.Domain, c.FeedbackCount, m[c.Domain])
			}
		}
		return m
	}
	check := func(name string, st *Store, want map[string]int) {
		t.Helper()
		got := counts(st)
		for d, n := range want {
			if got[d] != n {
				t.Errorf("%s: %s counts %d, want %d (all: %v)", name, d, got[d], n, got)
			}
		}
	}

	// Created, moved and deleted, all before any read of the counts.
	a := submit("a@acme.com")
	submit("b@acme.com")
	gone := submit("c@acme.com")
	submit("x@globex.com")
	if _, err := svc.Update(ctx, w.ID, a.ID, core.Patch{CustomerEmail: ptr("y@globex.com")}, ""); err != nil {
		t.Fatal(err)
	}
	if err := svc.Delete(ctx, w.ID, gone.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Company(ctx, w.ID, core.NewID()); !errors.Is(err, core.ErrNotFound) {
		t.Fatalf("no such company, read while records are uncounted: %v", err)
	}
	var uncounted int
	if err := st.w.QueryRowContext(ctx, `SELECT count(*) FROM records_fts_pending WHERE counted = 0`).Scan(&uncounted); err != nil || uncounted != 0 {
		t.Fatalf("uncounted after a read that found nothing: %d, %v", uncounted, err)
	}
	check("folded by the read", st, map[string]int{"acme.com": 1, "globex.com": 2})

	// Counted records moved and deleted, then more created and drained by the indexer unread.
	if _, err := svc.Update(ctx, w.ID, a.ID, core.Patch{CustomerEmail: ptr("")}, ""); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		submit("d@initech.com")
	}
	if err := st.FlushIndex(ctx); err != nil {
		t.Fatal(err)
	}
	var queued int
	if err := st.w.QueryRowContext(ctx, `SELECT count(*) FROM records_fts_pending`).Scan(&queued); err != nil || queued != 0 {
		t.Fatalf("queue after the drain: %d, %v", queued, err)
	}
	check("folded by the indexer", st, map[string]int{"acme.com": 1, "globex.com": 1, "initech.com": 3})

	// A read-only store cannot fold: it adds the uncounted records itself.
	submit("e@acme.com")
	submit("f@acme.com")
	submit("g@acme.com")
	ro, err := OpenMode(ctx, path, ModeReadOnly)
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	check("read-only", ro, map[string]int{"acme.com": 4, "globex.com": 1, "initech.com": 3})
	check("folded again", st, map[string]int{"acme.com": 4, "globex.com": 1, "initech.com": 3})
}

// TestFoldReadsTheQueueFirst: the fold must read the short queue and look its records up, never walk the
// records that have a company.
func TestFoldReadsTheQueueFirst(t *testing.T) {
	st := openT(t, filepath.Join(t.TempDir(), "plan.db"))
	got := queryPlan(t, st, uncounted)
	if !strings.HasPrefix(got, "SCAN p") || !strings.Contains(got, "SEARCH r USING INTEGER PRIMARY KEY") {
		t.Errorf("plan of the fold's read: %s", got)
	}
}

// queryPlan is SQLite's plan of q, its steps joined by "; ".
func queryPlan(t *testing.T, st *Store, q string, args ...any) string {
	t.Helper()
	rows, err := st.w.QueryContext(t.Context(), `EXPLAIN QUERY PLAN `+q, args...)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var plan []string
	for rows.Next() {
		var id, parent, unused int
		var detail string
		if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
			t.Fatal(err)
		}
		plan = append(plan, detail)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return strings.Join(plan, "; ")
}
