package insights

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"testing"
)

type evalCase struct {
	Text      string `json:"text"`
	Kind      string `json:"kind"`
	Sentiment string `json:"sentiment"`
}

func loadEval(t testing.TB, path string) []evalCase {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var cases []evalCase
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		var c evalCase
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			t.Fatalf("%s line %d: %v", path, line, err)
		}
		cases = append(cases, c)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return cases
}

// TestBuiltinAccuracy measures the builtin extractor on the labelled evaluation sets: eval.jsonl, written
// with the lexicon, and holdout.jsonl, written afterwards and never tuned on, which is the honest estimate.
// A sentence that yields no insight counts as wrong for both kind and sentiment. Run with -v to see the
// figures and every miss.
func TestBuiltinAccuracy(t *testing.T) {
	for _, tc := range []struct {
		path     string
		minCases int
	}{
		{"testdata/eval.jsonl", 150},
		{"testdata/holdout.jsonl", 60},
		{"testdata/blind.jsonl", 50},
	} {
		t.Run(tc.path, func(t *testing.T) {
			cases := loadEval(t, tc.path)
			if len(cases) < tc.minCases {
				t.Fatalf("%s has %d sentences, want at least %d", tc.path, len(cases), tc.minCases)
			}
			checkAccuracy(t, cases)
		})
	}
}

func checkAccuracy(t *testing.T, cases []evalCase) {
	const minKind, minSentiment = 0.80, 0.75
	b := NewBuiltin(0)
	kindOK, sentOK := 0, 0
	perKind := map[string][2]int{}
	for _, c := range cases {
		got, err := b.Extract(context.Background(), Input{Text: c.Text})
		if err != nil {
			t.Fatal(err)
		}
		kind, sent := "(none)", "(none)"
		if len(got) > 0 {
			kind, sent = got[0].Kind, got[0].Sentiment
		}
		pk := perKind[c.Kind]
		pk[1]++
		if kind == c.Kind {
			kindOK++
			pk[0]++
		} else {
			t.Logf("kind miss: %q: got %s, want %s", c.Text, kind, c.Kind)
		}
		perKind[c.Kind] = pk
		if sent == c.Sentiment {
			sentOK++
		} else {
			t.Logf("sentiment miss: %q: got %s, want %s", c.Text, sent, c.Sentiment)
		}
	}
	kindAcc := float64(kindOK) / float64(len(cases))
	sentAcc := float64(sentOK) / float64(len(cases))
	t.Logf("builtin on %d sentences: kind accuracy %.3f, sentiment accuracy %.3f", len(cases), kindAcc, sentAcc)
	for k, v := range perKind {
		t.Logf("  %-8s %d/%d", k, v[0], v[1])
	}
	if kindAcc < minKind {
		t.Errorf("kind accuracy %.3f below %.2f", kindAcc, minKind)
	}
	if sentAcc < minSentiment {
		t.Errorf("sentiment accuracy %.3f below %.2f", sentAcc, minSentiment)
	}
}
