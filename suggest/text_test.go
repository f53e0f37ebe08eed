package suggest

import (
	"slices"
	"strings"
	"testing"

	"github.com/feedbridge/feedbridge/core"
)

func TestStem(t *testing.T) {
	// Each group must meet in one stem; the pairs in apart must not.
	same := [][]string{
		{"export", "exports", "exported", "exporting", "exporter"},
		{"notify", "notified", "notification", "notifications"},
		{"share", "shared", "sharing"},
		{"filter", "filters", "filtering"},
		{"accessible", "accessibility"},
		{"run", "running"},
		{"category", "categories"},
	}
	for _, g := range same {
		t.Run(g[0], func(t *testing.T) {
			for _, w := range g[1:] {
				if stem(w) != stem(g[0]) {
					t.Errorf("stem(%q) = %q, stem(%q) = %q", w, stem(w), g[0], stem(g[0]))
				}
			}
		})
	}
	apart := [][2]string{{"customer", "custom"}, {"user", "use"}, {"order", "ord"}, {"status", "stat"}}
	for _, p := range apart {
		if stem(p[0]) == stem(p[1]) {
			t.Errorf("%q and %q meet in %q", p[0], p[1], stem(p[0]))
		}
	}
}

func TestWords(t *testing.T) {
	cases := []struct{ in, want string }{
		{"Don't EXPORT the customer's CSV!", "dont export the customers csv"},
		{"@mentions, e-mail & 2FA", "@ mentions e mail 2fa"},
		{"Café résumé", "café résumé"},
	}
	for _, c := range cases {
		if got := strings.Join(words(c.in), " "); got != c.want {
			t.Errorf("words(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestSpeller(t *testing.T) {
	sp := newSpeller()
	for _, w := range []string{"export", "filter", "calendar", "notification", "notification"} {
		sp.learn(w, stem(w))
	}
	cases := []struct {
		in, want string // want "" for no correction
	}{
		{"exprot", "export"},            // swapped letters
		{"fitler", "filter"},            // swapped letters
		{"calender", "calendar"},        // wrong letter
		{"notifcation", "notification"}, // missing letter
		{"exporting", ""},               // an inflection of a known word is no typo
		{"zebra", ""},                   // nothing near
		{"expo", ""},                    // too short to read as a typo
	}
	for _, c := range cases {
		got, ok := sp.correct(token{word: c.in, stem: stem(c.in)})
		if c.want == "" && ok || c.want != "" && got.word != c.want {
			t.Errorf("correct(%q) = %q %v, want %q", c.in, got.word, ok, c.want)
		}
	}
}

func conceptsOf(text string) []string {
	var out []string
	defaultLexicon().match(tokenize(text), func(_, c int) {
		if !slices.Contains(out, concepts[c].name) {
			out = append(out, concepts[c].name)
		}
	})
	return out
}

func TestConcepts(t *testing.T) {
	cases := []struct {
		text, want string
	}{
		{"a night theme please", "dark mode"},
		{"can I log in with Okta", "single sign-on"},
		{"we need single sign on", "single sign-on"},
		{"sign on, single, please", "single sign-on"}, // any order, close together
		{"the page takes forever", "performance"},
		{"get our data into a spreadsheet", "export"},
	}
	for _, c := range cases {
		if got := conceptsOf(c.text); !slices.Contains(got, c.want) {
			t.Errorf("%q names %v, want %q among them", c.text, got, c.want)
		}
	}
	// Words far apart are no phrase, and a stop word alone names nothing.
	for _, text := range []string{"single customers sign up for the trial and later move on", "hi team, more please"} {
		for _, c := range conceptsOf(text) {
			if c == "single sign-on" || c == "team" || c == "increase" {
				t.Errorf("%q names %q", text, c)
			}
		}
	}
}

func TestMatchReasonAndThemes(t *testing.T) {
	ix := newIndex(defaultLexicon())
	ix.put("000000000000000000000001", "1", "Export reports to CSV", "Monthly reports as a spreadsheet file.")
	ix.put("000000000000000000000002", "1", "Dark mode", "")
	ms := ix.match(core.MatchQuery{Text: "I download the monthly numbers into excel by hand", Limit: 5})
	if len(ms) != 1 || ms[0].ID != "000000000000000000000001" {
		t.Fatalf("matches %v", ms)
	}
	if r := ms[0].Reason; !strings.HasPrefix(r, "both mention: ") || !strings.Contains(r, "export") || !strings.Contains(r, "monthly") {
		t.Errorf("reason %q", r)
	}
	if ms[0].Score <= 0 || ms[0].Score >= 1 {
		t.Errorf("score %v", ms[0].Score)
	}
	// A theme alone can carry a match; a skipped record is never answered.
	ms = ix.match(core.MatchQuery{Text: "see ticket 42", Themes: []string{"night theme"}, Limit: 5})
	if len(ms) != 1 || ms[0].ID != "000000000000000000000002" {
		t.Errorf("with a theme: %v", ms)
	}
	ms = ix.match(core.MatchQuery{Text: "dark mode", Skip: "000000000000000000000002", Limit: 5})
	if len(ms) != 0 {
		t.Errorf("skip: %v", ms)
	}
}
