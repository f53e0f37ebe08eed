package insights

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"slices"
	"testing"
)

// themeCase is one text with the theme a product manager would file it under.
type themeCase struct {
	Text  string `json:"text"`
	Theme string `json:"theme"`
}

// minThemeAgreement is the share of testdata/themes/eval.jsonl whose theme the builtin extractor must name
// among the themes of the text's insights.
const minThemeAgreement = 0.8

// TestThemeAgreement scores the builtin extractor's themes against the set in testdata/themes, written
// before the theme code was read: for each text, the theme a product manager would write (a product
// phrase, the same for every wording of it). Run with -v for the figure and every miss.
func TestThemeAgreement(t *testing.T) {
	f, err := os.Open("testdata/themes/eval.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	b := NewBuiltin(0)
	var n, hit int
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var c themeCase
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			t.Fatal(err)
		}
		got, err := b.Extract(context.Background(), Input{Text: c.Text})
		if err != nil {
			t.Fatal(err)
		}
		var themes []string
		for _, in := range got {
			for _, th := range in.Themes {
				themes = append(themes, th, NormalizeTheme(th))
			}
		}
		n++
		if slices.Contains(themes, c.Theme) || slices.Contains(themes, NormalizeTheme(c.Theme)) {
			hit++
		} else {
			t.Logf("miss: want %q, got %q: %s", c.Theme, themes, c.Text)
		}
	}
	if n < 40 {
		t.Fatalf("%d cases, want at least 40", n)
	}
	share := float64(hit) / float64(n)
	t.Logf("theme agreement %d/%d = %.3f", hit, n, share)
	if share < minThemeAgreement {
		t.Errorf("theme agreement %.3f, want ≥ %.2f", share, minThemeAgreement)
	}
}
