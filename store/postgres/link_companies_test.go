package postgres_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/feedbridge/feedbridge/core"
	"github.com/feedbridge/feedbridge/store/postgres/pgtest"
)

// TestLinkCompanyCountsFollowLinks checks that record_link_companies holds, after every way a link is
// written, moved or removed, the count of each Idea's links by company, and that the Ideas' accounts read
// from it rank as the links themselves do.
func TestLinkCompanyCountsFollowLinks(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := pgtest.Open(t)
	ws := workspace(t, st, 0).ID
	pool := st.Pool()
	exec := func(q string) {
		t.Helper()
		if _, err := pool.Exec(ctx, q, ws); err != nil {
			t.Fatal(err)
		}
	}
	// Five companies, two of one name and one without a name; feedback of every company and of none.
	exec(`INSERT INTO companies (workspace_id, id, name, domain) VALUES
		($1, 'c1', 'Acme', 'acme.test'), ($1, 'c2', 'Globex', 'globex.test'), ($1, 'c3', 'Same', 'same-a.test'),
		($1, 'c4', 'Same', 'same-b.test'), ($1, 'c5', '', 'noname.test')`)
	exec(`INSERT INTO records (workspace_id, id, type, title, search_text, status, source, company_id, created_at, updated_at)
		SELECT $1, 'f' || g, 'Feedback', 't', 't', 'Triage', 'API', (ARRAY['c1', 'c2', 'c3', 'c4', 'c5', ''])[g % 6 + 1],
			now() - g * interval '1 minute', now() FROM generate_series(1, 36) g
		UNION ALL
		SELECT $1, 'i' || g, 'Idea', 'i', 'i', 'Triage', 'API', CASE g WHEN 1 THEN 'c2' ELSE '' END,
			now() - g * interval '1 hour', now() FROM generate_series(1, 3) g`)
	check := func(step string) {
		t.Helper()
		if extra, missing := linkCountDrift(t, pool, ws); extra != 0 || missing != 0 {
			t.Fatalf("after %s: %d counts of record_link_companies that the links do not make, %d missing", step, extra, missing)
		}
		// The accounts of every Idea as a demand listing reads them, against the ranking of its links.
		recs, err := st.Records(ctx, ws, core.ListQuery{Type: core.RecordIdea, Order: core.OrderDemand, Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range recs {
			rows, err := pool.Query(ctx, `SELECT c.name FROM record_links l JOIN companies c
				ON c.workspace_id = l.workspace_id AND c.id = l.company_id WHERE l.workspace_id = $1 AND l.target_id = $2`, ws, r.ID)
			if err != nil {
				t.Fatal(err)
			}
			names, err := pgx.CollectRows(rows, pgx.RowTo[string])
			if err != nil {
				t.Fatal(err)
			}
			if want := core.RankAccounts(r.Customer, names); !slices.Equal(r.Accounts, want) {
				t.Fatalf("after %s: %s has accounts %q, want %q", step, r.ID, r.Accounts, want)
			}
		}
	}
	link := func(f, target int) {
		t.Helper()
		_, err := st.LinkRecords(ctx, ws, core.LinkChange{Feedback: core.ID(fmt.Sprint("f", f)), Target: core.ID(fmt.Sprint("i", target)), At: time.Now()})
		if err != nil {
			t.Fatal(err)
		}
	}
	for f := 1; f <= 36; f++ {
		link(f, f%3+1)
		if f%4 == 0 {
			link(f, (f+1)%3+1)
		}
	}
	check("links")
	for _, f := range []int{3, 6, 7} {
		if err := st.UnlinkRecords(ctx, ws, core.LinkChange{Feedback: core.ID(fmt.Sprint("f", f)), Target: core.ID(fmt.Sprint("i", f%3+1)), At: time.Now()}); err != nil {
			t.Fatal(err)
		}
	}
	check("unlinks")
	exec(`UPDATE records SET company_id = 'c2' WHERE workspace_id = $1 AND id IN ('f1', 'f2', 'f6')`)
	exec(`UPDATE records SET company_id = '' WHERE workspace_id = $1 AND id IN ('f4', 'f5')`)
	check("a change of the feedback's company")
	if _, err := st.MergeRecords(ctx, ws, "f8", "f9", time.Now(), core.Actor{}, nil); err != nil {
		t.Fatal(err)
	}
	check("a merge of feedback")
	if _, err := st.MergeRecords(ctx, ws, "i2", "i1", time.Now(), core.Actor{}, nil); err != nil {
		t.Fatal(err)
	}
	check("a merge of Ideas")
	if err := st.DeleteRecord(ctx, ws, "f10", nil); err != nil {
		t.Fatal(err)
	}
	check("a feedback deleted")
	var n int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM record_link_companies WHERE workspace_id = $1`, ws).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n == 0 {
		t.Fatal("record_link_companies is empty")
	}
	if err := st.DeleteRecord(ctx, ws, "i1", nil); err != nil {
		t.Fatal(err)
	}
	check("an Idea deleted")
	exec(`DELETE FROM records WHERE workspace_id = $1 AND id = 'i3'`) // the links go by their foreign key
	check("an Idea deleted without the store")
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM record_link_companies WHERE workspace_id = $1`, ws).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 0 {
		t.Fatalf("%d counts left with no links", n)
	}
}

// linkCountDrift compares record_link_companies with the counts the workspace's links make: extra is how
// many of its rows no link makes, missing how many counts it lacks.
func linkCountDrift(t *testing.T, pool *pgxpool.Pool, ws core.ID) (extra, missing int) {
	t.Helper()
	err := pool.QueryRow(context.Background(), `WITH want AS (SELECT workspace_id, target_id, company_id, count(*)::int AS n
			FROM record_links WHERE workspace_id = $1 AND company_id <> '' GROUP BY 1, 2, 3),
		have AS (SELECT workspace_id, target_id, company_id, n FROM record_link_companies WHERE workspace_id = $1)
		SELECT (SELECT count(*) FROM (SELECT * FROM have EXCEPT SELECT * FROM want) x),
		       (SELECT count(*) FROM (SELECT * FROM want EXCEPT SELECT * FROM have) x)`, ws).Scan(&extra, &missing)
	if err != nil {
		t.Fatal(err)
	}
	return extra, missing
}
