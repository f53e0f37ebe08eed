package insights

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden")

func extract(t *testing.T, in Input) []Insight {
	t.Helper()
	got, err := NewBuiltin(0).Extract(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

func TestBuiltinExtract(t *testing.T) {
	tags := []string{"Mobile App", "Billing", "SSO", "Dark Mode"}
	type want struct{ kind, sentiment, quote string }
	tests := []struct {
		name string
		in   Input
		want []want
	}{
		{"one insight per signal sentence, greeting and sign-off skipped",
			Input{Text: "Hi team,\n\nThe export crashes on large files. We use it daily. Please add dark mode!\n\nThanks,\nJane"},
			[]want{{KindProblem, SentimentNegative, "The export crashes on large files."},
				{KindRequest, SentimentNeutral, "Please add dark mode!"}}},
		{"title used when the text is empty",
			Input{Title: "Love the new dashboard", Text: ""},
			[]want{{KindPraise, SentimentPositive, "Love the new dashboard"}}},
		{"title not used when the text has signal",
			Input{Title: "Love it", Text: "How do I reset my password?"},
			[]want{{KindQuestion, SentimentNeutral, "How do I reset my password?"}}},
		{"sign-off name skipped", Input{Text: "The export crashes on large files.\n\nThanks,\nMaria"},
			[]want{{KindProblem, SentimentNegative, "The export crashes on large files."}}},
		{"praise without a cue word", Input{Text: "Your onboarding was the smoothest we have seen in any tool."},
			[]want{{KindPraise, SentimentPositive, "Your onboarding was the smoothest we have seen in any tool."}}},
		{"slowness in neutral words", Input{Text: "Page load on the insights board takes over ten seconds."},
			[]want{{KindProblem, SentimentNegative, "Page load on the insights board takes over ten seconds."}}},
		{"enjoyment is praise", Input{Text: "The team really enjoys the weekly digest email."},
			[]want{{KindPraise, SentimentPositive, "The team really enjoys the weekly digest email."}}},
		{"misspelled short rating", Input{Text: "usefull"}, []want{{KindPraise, SentimentPositive, "usefull"}}},
		{"request phrased as missing", Input{Text: "No option to rename a board."},
			[]want{{KindRequest, SentimentNeutral, "No option to rename a board."}}},
		{"hedged request is no praise", Input{Text: "Could be better with the addition of dark mode."},
			[]want{{KindRequest, SentimentNeutral, "Could be better with the addition of dark mode."}}},
		{"bug report asked as a question", Input{Text: "When are you fixing the login bug?"},
			[]want{{KindProblem, SentimentNegative, "When are you fixing the login bug?"}}},
		{"please help stays a problem", Input{Text: "Please help, the app is loading very slowly."},
			[]want{{KindProblem, SentimentNegative, "Please help, the app is loading very slowly."}}},
		{"negated cue is praise", Input{Text: "Not driven by advertising."},
			[]want{{KindPraise, SentimentPositive, "Not driven by advertising."}}},
		{"except for reads like but", Input{Text: "Great app except for the constant logouts."},
			[]want{{KindProblem, SentimentNegative, "Great app except for the constant logouts."}}},
		{"title and first sentence joined by a tab", Input{Text: "Love it\tThe sync crashes every morning."},
			[]want{{KindPraise, SentimentPositive, "Love it"}, {KindProblem, SentimentNegative, "The sync crashes every morning."}}},
		{"repeated sentence counted once",
			Input{Text: "Search is broken.\nsearch is broken."},
			[]want{{KindProblem, SentimentNegative, "Search is broken."}}},
		{"mixed clauses yield each kind, the weightier first",
			Input{Text: "I love the app but it crashes whenever I open a big board."},
			[]want{{KindProblem, SentimentNegative, "it crashes whenever I open a big board."},
				{KindPraise, SentimentPositive, "I love the app"}}},
		{"problem and praise joined by and",
			Input{Text: "The export button is broken and I love the new reports."},
			[]want{{KindProblem, SentimentNegative, "The export button is broken"},
				{KindPraise, SentimentPositive, "I love the new reports."}}},
		{"a request asked after a problem keeps both",
			Input{Text: "The sync is broken again, is there a way to force a refresh?"},
			[]want{{KindRequest, SentimentNeutral, "is there a way to force a refresh?"},
				{KindProblem, SentimentNegative, "The sync is broken again"}}},
		{"ads complaint is an opinion, not a bug report", Input{Text: "2 stars, too many ads."},
			[]want{{KindPraise, SentimentNegative, "2 stars, too many ads."}}},
		{"pricing complaint is an opinion", Input{Text: "Way too expensive for what it does."},
			[]want{{KindPraise, SentimentNegative, "Way too expensive for what it does."}}},
		{"paid feature still locked is a bug", Input{Text: "I paid for premium and it still shows ads."},
			[]want{{KindProblem, SentimentNegative, "I paid for premium and it still shows ads."}}},
		{"wish hidden in would be perfect", Input{Text: "Would be perfect if it had a home screen widget."},
			[]want{{KindRequest, SentimentNeutral, "Would be perfect if it had a home screen widget."}}},
		{"missing is a request", Input{Text: "Missing a dark mode."},
			[]want{{KindRequest, SentimentNeutral, "Missing a dark mode."}}},
		{"negated problem is praise", Input{Text: "No complaints, not a single error in months."},
			[]want{{KindPraise, SentimentPositive, "No complaints, not a single error in months."}}},
		{"fixed bug is praise", Input{Text: "Thanks for fixing the sync bug so fast!"},
			[]want{{KindPraise, SentimentPositive, "Thanks for fixing the sync bug so fast!"}}},
		{"wish is neutral", Input{Text: "It would be amazing to have SSO."},
			[]want{{KindRequest, SentimentNeutral, "It would be amazing to have SSO."}}},
		{"html-free markdown bullets", Input{Text: "Feedback:\n- exports fail\n- need SSO", Tags: tags},
			[]want{{KindProblem, SentimentNegative, "exports fail"}, {KindRequest, SentimentNeutral, "need SSO"}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := extract(t, tc.in)
			if len(got) != len(tc.want) {
				t.Fatalf("got %d insights %+v, want %d", len(got), got, len(tc.want))
			}
			for i, w := range tc.want {
				g := got[i]
				if g.Kind != w.kind || g.Sentiment != w.sentiment || g.Quote != w.quote {
					t.Errorf("insight %d = {%s %s %q}, want {%s %s %q}", i, g.Kind, g.Sentiment, g.Quote, w.kind, w.sentiment, w.quote)
				}
			}
		})
	}
}

func TestBuiltinThemesAndTags(t *testing.T) {
	tags := []string{"Mobile App", "Billing", "SSO", "Dark Mode", "API"}
	tests := []struct {
		name       string
		in         Input
		wantThemes []string
		wantTags   []string
	}{
		{"plural, case and stop words", Input{Text: "Please add Dark Mode to the Mobile Apps.", Tags: tags},
			[]string{"dark mode", "mobile app"}, []string{"Mobile App", "Dark Mode"}},
		{"tag from title applies", Input{Title: "Billing", Text: "We were charged twice for premium seats.", Tags: tags},
			[]string{"billing", "refund", "seats", "premium seat"}, []string{"Billing"}}, // concepts first
		{"tag needs whole words", Input{Text: "The rapid export crashes.", Tags: tags},
			[]string{"export", "crash", "rapid export"}, []string{}},
		{"long run keeps its head", Input{Text: "The weekly customer health score email digest is broken."},
			[]string{"score email digest"}, []string{}},
		{"generic word alone is no theme, the symptom is", Input{Text: "The app crashes."}, []string{"crash"}, []string{}},
		{"filler and numbering are no theme", Input{Text: "Item 60: it matters a lot and happens weekly."}, []string{}, []string{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := extract(t, tc.in)
			if len(got) != 1 {
				t.Fatalf("got %d insights, want 1: %+v", len(got), got)
			}
			if !reflect.DeepEqual(got[0].Themes, tc.wantThemes) {
				t.Errorf("themes = %q, want %q", got[0].Themes, tc.wantThemes)
			}
			if !reflect.DeepEqual(got[0].Tags, tc.wantTags) {
				t.Errorf("tags = %q, want %q", got[0].Tags, tc.wantTags)
			}
		})
	}
}

func TestNormalizeTheme(t *testing.T) {
	for in, want := range map[string]string{
		"Dark Mode": "dark mode", "the CSV exports": "csv export", "Slow loading of big boards": "loading big board",
		"the": "", "app": "", "  ": "", "Mobile App": "mobile app",
	} {
		if got := NormalizeTheme(in); got != want {
			t.Errorf("NormalizeTheme(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestBuiltinLimitsAndContext(t *testing.T) {
	text := strings.Repeat("The export is broken. ", 3) + strings.Repeat("Sync fails on Mondays number x. ", 1)
	var b strings.Builder
	for i := 0; i < 40; i++ {
		b.WriteString("Report ")
		b.WriteString(strings.Repeat("a", i%5+2))
		b.WriteString(string(rune('a' + i%26)))
		b.WriteString(" crashes.\n")
	}
	got, err := NewBuiltin(5).Extract(context.Background(), Input{Text: b.String() + text})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 5 {
		t.Errorf("got %d insights, want the cap of 5", len(got))
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := NewBuiltin(0).Extract(ctx, Input{Text: text}); !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
}

func TestBuiltinDeterministic(t *testing.T) {
	in := Input{Title: "Feedback", Text: sampleFeedbacks[0], Tags: []string{"Export"}}
	first := extract(t, in)
	for i := 0; i < 20; i++ {
		if got := extract(t, in); !reflect.DeepEqual(got, first) {
			t.Fatalf("run %d differs:\n%+v\n%+v", i, got, first)
		}
	}
}

// TestBuiltinGolden pins the full output for realistic feedbacks; run with -update after a deliberate change.
func TestBuiltinGolden(t *testing.T) {
	files, err := filepath.Glob("testdata/golden/*.txt")
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden inputs: %v", err)
	}
	tags := []string{"Mobile App", "Billing", "SSO", "Dark Mode", "Export", "Integrations"}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			raw, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			title, text, _ := strings.Cut(string(raw), "\n---\n")
			got, err := json.MarshalIndent(extract(t, Input{Title: title, Text: text, Tags: tags}), "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			golden := strings.TrimSuffix(f, ".txt") + ".json"
			if *update {
				if err := os.WriteFile(golden, append(got, '\n'), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			if strings.TrimSpace(string(want)) != string(got) {
				t.Errorf("output differs from %s:\n%s", golden, got)
			}
		})
	}
}
