package insights

import (
	"context"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzBuiltin feeds the builtin extractor arbitrary text: it must not panic, a text or title with a
// sentence of words must yield an insight, and every insight must keep the contract (an exact quote from
// the input, a known kind, a score in −1…1 that agrees with its label).
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
		if len(got) == 0 && (hasWords(text) || hasWords(title)) {
			t.Fatalf("no insight from text %q, title %q", text, title)
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

// FuzzOpenAIParse feeds the openai extractor's answer parser arbitrary bodies: it must not panic, and what
// it accepts must keep the contract.
func FuzzOpenAIParse(f *testing.F) {
	f.Add(`{"choices":[{"finish_reason":"stop","message":{"content":"{\"insights\":[{\"kind\":\"problem\",\"summary\":\"s\",\"quote\":\"The export fails.\",\"sentiment\":\"negative\",\"sentiment_score\":-0.5,\"themes\":[\"Exports\"],\"tags\":[\"export\"]}]}"}}]}`, "The export fails. Love it.")
	f.Add(`{"choices":[{"message":{"content":"{\"insights\":[{\"kind\":\"praise\",\"quote\":\"love\",\"sentiment_score\":1e308}]}"}}]}`, "Love it.")
	f.Add(`{"choices":[{"message":{"refusal":"no"}}]}`, "x")
	f.Add(`{"choices":[]}`, "")
	f.Add(`not json`, "text")
	o, err := NewOpenAI(OpenAIConfig{BaseURL: "http://127.0.0.1:1/v1", Model: "m"})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, body, text string) {
		in := Input{Title: "t", Text: text, Tags: []string{"Export"}}
		got, err := o.parse([]byte(body), in)
		if err != nil {
			return
		}
		for _, ins := range got {
			if !strings.Contains(text, ins.Quote) && !strings.Contains(in.Title, ins.Quote) {
				t.Fatalf("quote %q is not in the input", ins.Quote)
			}
			if ins.Score < -1 || ins.Score > 1 || ins.Themes == nil || ins.Tags == nil || ins.Summary == "" {
				t.Fatalf("insight breaks the contract: %+v", ins)
			}
			for _, tg := range ins.Tags {
				if tg != "Export" {
					t.Fatalf("tag %q was not offered", tg)
				}
			}
		}
	})
}

// hasWords reports whether some sentence of s has a word to read.
func hasWords(s string) bool {
	for _, sp := range splitSentences(s) {
		if len(tokenize(s[sp.start:sp.end], nil)) > 0 {
			return true
		}
	}
	return false
}
