package postgres_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/feedbridge/feedbridge/core"
	"github.com/feedbridge/feedbridge/store/postgres/pgtest"
)

// The planner's estimate of how many records a search term matches decides between walking the listing
// index and reading every match: a term found in one record of a hundred or more must not be estimated as
// rare, or each search for it reads and sorts all its matches. Every such word of the generated feedback is
// estimated within a factor of three of its true count after an ANALYZE.
func TestSearchEstimatesCommonTerms(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := pgtest.Open(t)
	ws := workspace(t, st, 0)
	const n = 40_000
	gen := newFeedbackGen(11)
	start := time.Now().Add(-365 * 24 * time.Hour)
	rs := make([]core.NewRecord, n)
	for i := range rs {
		rs[i] = gen.recordAt(start.Add(time.Duration(i) * time.Minute))
	}
	if err := rawCopy(ctx, st, ws.ID, rs); err != nil {
		t.Fatal(err)
	}
	pool := st.Pool()
	if _, err := pool.Exec(ctx, `ANALYZE records`); err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, word := range vocabulary {
		if utf8.RuneCountInString(word) < 3 {
			continue
		}
		pattern := "%" + core.Fold(word) + "%"
		var actual int
		if err := pool.QueryRow(ctx, `SELECT count(*) FROM records WHERE workspace_id = $1 AND search_text LIKE $2`,
			ws.ID, pattern).Scan(&actual); err != nil {
			t.Fatal(err)
		}
		if actual < n/100 {
			continue
		}
		checked++
		var plan []struct {
			Plan struct {
				Rows float64 `json:"Plan Rows"`
			} `json:"Plan"`
		}
		var raw []byte
		if err := pool.QueryRow(ctx, `EXPLAIN (FORMAT JSON) SELECT * FROM records WHERE workspace_id = $1 AND search_text LIKE $2`,
			ws.ID, pattern).Scan(&raw); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(raw, &plan); err != nil || len(plan) != 1 {
			t.Fatalf("EXPLAIN %q: %v in %s", word, err, raw)
		}
		if est := plan[0].Plan.Rows; est < float64(actual)/3 || est > float64(actual)*3 {
			t.Errorf("%q: estimated %.0f records, matches %d", word, est, actual)
		}
	}
	if checked < 10 {
		t.Fatalf("only %d words are in 1%% of the records; the check needs at least 10", checked)
	}
	t.Logf("%d words checked", checked)
}
