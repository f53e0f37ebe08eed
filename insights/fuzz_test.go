package insights

import (
	"context"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzBuiltin feeds the builtin extractor arbitrary text: it must not panic, and every insight must keep
// the contract (an exact quote from the input, a known kind, a score in −1…1 that agrees with its label).
func FuzzBuiltin(f *testing.F) {
	for _, s := range sampleFeedbacks {
		f.Add("Feedback", s, "Billing")
	}
	f.Add("", "", "")
	f.Add("?", "...\n>\n- \n1) ", "a")
	f.Add("title", "Don't can't won't I'd it's let's n't 'd ''", "Dark Mode")
	f.Add("x", strings.Repeat("crash ", 300), "crash")
	f.Add("x", "e.g. i.e. J. 2.5. ??!! … 🎉😡 \u00a0 \xff\xfe", "🎉")
	b := NewBuiltin(0)
	f.Fuzz(func(t *testing.T, title, text, tag string) {
		got, err := b.Extract(context.Background(), Input{Title: title, Text: text, Tags: []string{tag}})
		if err != nil {
			t.Fatal(err)
		}
		if len(got) > DefaultMaxInsights {
			t.Fatalf("%d insights, over the cap", len(got))
		}
		for _, in := range got {
			if !strings.Contains(text, in.Quote) && !strings.Contains(title, in.Quote) {
				t.Fatalf("quote %q is not in the input", in.Quote)
			}
			if in.Quote == "" || len(in.Quote) > maxSentence {
				t.Fatalf("quote of %d bytes", len(in.Quote))
			}
			switch in.Kind {
			case KindRequest, KindProblem, KindPraise, KindQuestion:
			default:
				t.Fatalf("kind %q", in.Kind)
			}
			if in.Score < -1 || in.Score > 1 || sentimentLabel(in.Score) != in.Sentiment {
				t.Fatalf("score %v with sentiment %q", in.Score, in.Sentiment)
			}
			if in.Themes == nil || in.Tags == nil || in.Summary == "" || !utf8.ValidString(in.Summary) && utf8.ValidString(in.Quote) {
				t.Fatalf("incomplete insight %+v", in)
			}
			for _, tg := range in.Tags {
				if tg != tag {
					t.Fatalf("tag %q was not offered", tg)
				}
			}
		}
	})
}
