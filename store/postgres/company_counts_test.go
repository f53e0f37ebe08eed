package postgres_test

import (
	"slices"
	"sync"
	"testing"

	"github.com/feedbridge/feedbridge/core"
	"github.com/feedbridge/feedbridge/store/postgres"
)

// TestCompanyCountChanges builds a schema at version 24, whose companies hold their counts, then opens the
// store, which keeps new changes apart from the counts until they are folded in (migration 26). After every
// step (inserts of one and of many records, a deletion, a move, folds) each read of the companies must
// show the counts of the records as they are, and the listing must page in that order, whether a company's
// count is folded, pending or both.
func TestCompanyCountChanges(t *testing.T) {
	o := olderSchema(t, func(v int, _ string) bool { return v >= 26 })
	ctx, exec := o.ctx, o.exec
	ws := core.NewID()
	exec(`INSERT INTO workspaces (id, name, plan, created_at) VALUES ($1, 'A', 'pro', now())`, string(ws))
	names := []string{"acme", "globex", "initech", "hooli", "umbrella"}
	ids := map[string]string{}
	for _, n := range names {
		ids[n] = string(core.NewID())
		exec(`INSERT INTO companies (workspace_id, id, name, domain) VALUES ($1, $2, $3, $3 || '.com')`, string(ws), ids[n], n)
	}
	add := func(company string, n int) {
		t.Helper()
		exec(`INSERT INTO records (workspace_id, id, type, title, search_text, status, source, company_id, created_at, updated_at)
			SELECT $1, $2 || i, 'Feedback', 't', 't', 'Triage', 'API', $3, now(), now() FROM generate_series(1, $4::int) i`,
			string(ws), string(core.NewID()), ids[company], n)
	}
	add("acme", 3)
	add("globex", 2)

	st, err := postgres.Open(ctx, o.url)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	fold := func() { exec(`SELECT company_counts_fold($1)`, string(ws)) }
	check := func(step string) {
		t.Helper()
		rows, err := o.pool.Query(ctx, `SELECT c.id, count(r.id) FROM companies c
			LEFT JOIN records r ON r.workspace_id = c.workspace_id AND r.company_id = c.id
			WHERE c.workspace_id = $1 GROUP BY c.id ORDER BY count(r.id) DESC, c.id`, string(ws))
		if err != nil {
			t.Fatal(err)
		}
		var want []companyCount
		for rows.Next() {
			var c companyCount
			if err := rows.Scan(&c.ID, &c.Count); err != nil {
				t.Fatal(err)
			}
			want = append(want, c)
		}
		if rows.Err() != nil {
			t.Fatal(rows.Err())
		}
		for _, limit := range []int{1, 2, 3, 10} {
			var got []companyCount
			q := core.CompanyQuery{Limit: limit}
			for range 10 {
				page, err := st.CompanyList(ctx, ws, q)
				if err != nil {
					t.Fatal(err)
				}
				for _, c := range page {
					got = append(got, companyCount{c.ID, c.FeedbackCount})
				}
				if len(page) < limit {
					break
				}
				last := page[len(page)-1]
				q.After = &core.CompanyCursor{FeedbackCount: last.FeedbackCount, ID: last.ID}
			}
			if !slices.Equal(got, want) {
				t.Errorf("%s: listing by %d: %v, want %v", step, limit, got, want)
			}
		}
		all, err := st.Companies(ctx, ws)
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range want {
			one, err := st.Company(ctx, ws, w.ID)
			if err != nil || one.FeedbackCount != w.Count {
				t.Errorf("%s: company %s: %d, %v, want %d", step, w.ID, one.FeedbackCount, err, w.Count)
			}
			i := slices.IndexFunc(all, func(c core.Company) bool { return c.ID == w.ID })
			if i < 0 || all[i].FeedbackCount != w.Count {
				t.Errorf("%s: companies: %+v, want %v", step, all, w)
			}
		}
	}

	check("after the migration")
	add("globex", 1)
	add("globex", 1)
	add("hooli", 1)
	check("pending changes put globex ahead of acme's folded count")
	fold()
	check("folded")
	add("initech", 300)
	add("acme", 1)
	check("a statement of many records")
	exec(`DELETE FROM records WHERE workspace_id = $1 AND company_id = $2 AND id IN (
		SELECT id FROM records WHERE workspace_id = $1 AND company_id = $2 LIMIT 299)`, string(ws), ids["initech"])
	exec(`UPDATE records SET company_id = $3 WHERE workspace_id = $1 AND id = (
		SELECT id FROM records WHERE workspace_id = $1 AND company_id = $2 LIMIT 1)`, string(ws), ids["acme"], ids["umbrella"])
	check("a deletion and a move")
	fold()
	check("folded again")

	// Writers side by side, each folding now and then: folds skip each other and lose no change.
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for w := range 4 {
		wg.Go(func() {
			for i := range 60 {
				q := `INSERT INTO records (workspace_id, id, type, title, search_text, status, source, company_id, created_at, updated_at)
					VALUES ($1, $2, 'Feedback', 't', 't', 'Triage', 'API', $3, now(), now())`
				args := []any{string(ws), string(core.NewID()), ids[names[(w+i)%len(names)]]}
				if i%10 == 9 {
					q, args = `SELECT company_counts_fold($1)`, args[:1]
				}
				if _, err := o.pool.Exec(ctx, q, args...); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	check("writers side by side")
	fold()
	var pending, wrong int
	if err := o.pool.QueryRow(ctx, `SELECT (SELECT count(*) FROM company_count_deltas),
		(SELECT count(*) FROM companies c WHERE feedback_count <>
			(SELECT count(*) FROM records r WHERE r.workspace_id = c.workspace_id AND r.company_id = c.id))`).Scan(&pending, &wrong); err != nil {
		t.Fatal(err)
	}
	if pending != 0 || wrong != 0 {
		t.Errorf("after a fold: %d changes left, %d companies whose count is not their records'", pending, wrong)
	}
}

// companyCount is what a listing shows of each company.
type companyCount struct {
	ID    core.ID
	Count int
}
