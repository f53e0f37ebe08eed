package email

import (
	"context"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/feedbridge/feedbridge/core"
)

// TestDescriptionStaysLiteral sends descriptions through the real service: text that looks like markup
// (addresses in angle brackets, entities) must come back as the parser made it; only tag-shaped text goes,
// by the service's rule that plain text never carries tags.
func TestDescriptionStaysLiteral(t *testing.T) {
	fx := newFixture(t)
	long := strings.Repeat("a < b & c ", 12_000)
	tests := []struct{ name, desc, want string }{
		{"plain", "The export is slow.\n\nThanks,\nJane", ""},
		{"address and link", "Reply to <jane@acme.com> or see <https://acme.com/x?a=1&b=2>", ""},
		{"entities stay typed", "Shows &amp; and &lt;raw&gt; literally\n  indented line", ""},
		{"tags go", "The field shows <b>bold</b> text", "The field shows bold text"},
		{"longest", core.Truncate(long, maxDescription, truncatedMark), ""},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := Message{Title: "t", Description: tt.desc, DedupKey: "email:lit-" + string(rune('a'+i))}
			sub := submission(m, time.Time{}, "support")
			if n := utf8.RuneCountInString(sub.Description); n > core.MaxDescription {
				t.Fatalf("submitted description has %d runes", n)
			}
			res, err := fx.svc.Submit(context.Background(), fx.ws, sub)
			if err != nil {
				t.Fatal(err)
			}
			want := tt.want
			if want == "" {
				want = tt.desc
			}
			if got := res.Record.Description; got != want {
				t.Errorf("description came back as %.80q, want %.80q", got, want)
			}
		})
	}
}
