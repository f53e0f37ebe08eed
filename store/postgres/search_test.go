package postgres_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/feedbridge/feedbridge/core"
	"github.com/feedbridge/feedbridge/store/postgres/pgtest"
)

// Search text is matched literally: LIKE's wildcards in a query are plain characters.
func TestSearchIsLiteral(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := pgtest.Open(t)
	svc := core.NewService(st, core.Options{})
	ws := workspace(t, st, 0)
	for _, title := range []string{"100% uptime", "1000 users", "snake_case names", "snakeXcase", `back\slash`, "Straße gesperrt"} {
		if _, err := svc.Submit(ctx, ws.ID, core.Submission{Type: core.RecordIdea, Title: title}); err != nil {
			t.Fatal(err)
		}
	}
	cases := []struct {
		search string
		want   []string
	}{
		{"100%", []string{"100% uptime"}},
		{"snake_case", []string{"snake_case names"}},
		{`k\s`, []string{`back\slash`}},
		{"STRASSE", []string{"Straße gesperrt"}},
		{"%", []string{"100% uptime"}},
		{"_", []string{"snake_case names"}},
	}
	for _, c := range cases {
		t.Run(c.search, func(t *testing.T) {
			page, err := svc.List(ctx, ws.ID, core.ListRequest{Search: c.search})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, r := range page.Records {
				got = append(got, r.Title)
			}
			if len(got) != len(c.want) || (len(got) > 0 && got[0] != c.want[0]) {
				t.Errorf("search %q: %q, want %q", c.search, got, c.want)
			}
		})
	}
}

// A search of 1,000 characters over a workspace whose every record is a candidate ends with the caller's
// deadline (the statement is cancelled on the server), and the pool serves on afterwards.
func TestLongSearchEndsWithItsDeadline(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := pgtest.Open(t)
	ws := workspace(t, st, 0)
	for i := 0; i < 20_000; i += 1000 {
		batch := make([]core.NewRecord, 0, 1000)
		for j := i; j < i+1000; j++ {
			batch = append(batch, newRecord(fmt.Sprintf("record %d says yyyy and more", j)))
		}
		if _, err := st.CreateRecords(ctx, ws.ID, batch); err != nil {
			t.Fatal(err)
		}
	}
	// A deadline that has already passed: a quiet server can answer a search in under any deadline short
	// enough to be sure of, so what is checked is that an ended deadline ends the search with its error
	// and leaves the store usable.
	short, cancel := context.WithDeadline(ctx, time.Now().Add(-time.Millisecond))
	defer cancel()
	_, err := st.Records(short, ws.ID, core.ListQuery{Type: core.RecordFeedback, Search: strings.Repeat("y", 1000), Limit: 1})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("want the search to end with its deadline, got %v", err)
	}
	recs, err := st.Records(ctx, ws.ID, core.ListQuery{Type: core.RecordFeedback, Search: "record 19999 says", Limit: 3})
	if err != nil || len(recs) != 1 {
		t.Fatalf("search afterwards: %d records, %v", len(recs), err)
	}
}

// A long search term is looked up in the trigram index by a part of it and confirmed whole: the record
// holding the term is found, one holding only that part is not.
func TestLongSearchTermIsConfirmedWhole(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := pgtest.Open(t)
	ws := workspace(t, st, 0)
	term := strings.Repeat("abcdefghij0123456789 ", 40)[:800]
	titles := []string{"before " + term + " after", term[:400], "x" + term[1:]}
	var batch []core.NewRecord
	for _, title := range titles {
		batch = append(batch, newRecord(title))
	}
	if _, err := st.CreateRecords(ctx, ws.ID, batch); err != nil {
		t.Fatal(err)
	}
	recs, err := st.Records(ctx, ws.ID, core.ListQuery{Type: core.RecordFeedback, Search: term, Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 1 || recs[0].Title != titles[0] {
		var got []string
		for _, r := range recs {
			got = append(got, r.Title[:20])
		}
		t.Fatalf("want only the record holding the whole term, got %q", got)
	}
}
