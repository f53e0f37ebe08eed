package suggest

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/feedbridge/feedbridge/core"
)

// Run: go test ./suggest -run '^$' -bench . -benchtime 20x
//
// The matcher alone, without store or HTTP: building the index of 10,000 synthetic ideas drawn from the
// concept vocabulary (so that postings are as long as real ones get), and answering the evaluation set's
// texts from it.

func synthIdeas(n int) [][2]string {
	var vocab []string
	for w := range defaultLexicon().words {
		vocab = append(vocab, w)
	}
	// map order is random; sort for a stable draw
	slices.Sort(vocab)
	rng := rand.New(rand.NewPCG(3, 5))
	words := func(k int) string {
		w := make([]string, k)
		for i := range w {
			w[i] = vocab[rng.IntN(len(vocab))]
		}
		return strings.Join(w, " ")
	}
	out := make([][2]string, n)
	for i := range out {
		out[i] = [2]string{words(2 + rng.IntN(4)), words(10 + rng.IntN(40))}
	}
	return out
}

func BenchmarkIndexBuild(b *testing.B) {
	ideas := synthIdeas(10_000)
	for b.Loop() {
		ix := newIndex(defaultLexicon())
		for i, d := range ideas {
			ix.put(core.ID(fmt.Sprintf("%024x", i)), "1", d[0], d[1])
		}
	}
}

func BenchmarkMatch(b *testing.B) {
	ix := newIndex(defaultLexicon())
	for i, d := range synthIdeas(10_000) {
		ix.put(core.ID(fmt.Sprintf("%024x", i)), "1", d[0], d[1])
	}
	var texts []string
	for _, r := range readTSV(b, "testdata/eval/feedback.tsv", 2) {
		texts = append(texts, r[1])
	}
	i := 0
	for b.Loop() {
		ix.match(core.MatchQuery{Text: texts[i%len(texts)], Limit: 20})
		i++
	}
}
