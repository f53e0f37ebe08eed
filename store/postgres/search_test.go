package postgres_test

import (
	"context"
	"testing"

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
