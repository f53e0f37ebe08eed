package suggest

import (
	"fmt"
	"math"
	"sort"
	"testing"

	"github.com/feedbridge/feedbridge/core"
)

// TestSearchAgreesWithFullScoring holds the pruned search to the answer of scoring every document with
// every term: the same documents in the same order with the same scores, at several limits, over an index
// with replaced and removed documents and with the asking document left out.
func TestSearchAgreesWithFullScoring(t *testing.T) {
	ix := newIndex(defaultLexicon())
	ideas := synthIdeas(4000)
	id := func(i int) core.ID { return core.ID(fmt.Sprintf("%024x", i)) }
	for i, d := range ideas {
		ix.put(id(i), "1", d[0], d[1])
	}
	for i := 0; i < len(ideas); i += 7 {
		ix.put(id(i), "2", ideas[(i+1)%len(ideas)][0], ideas[i][1]) // edited: the old slot dies
	}
	for i := 3; i < len(ideas); i += 11 {
		ix.remove(id(i))
	}
	var texts []string
	for _, r := range readTSV(t, "testdata/eval/feedback.tsv", 2) {
		texts = append(texts, r[1])
	}
	texts = append(texts, ideas[5][0]+" "+ideas[5][1], "the", "")
	compared := 0
	for n, text := range texts {
		q := queryOf(ix.lex, ix.spell, "", text, nil)
		skip := id(n % 40)
		all := fullSearch(ix, q, skip)
		for _, limit := range []int{1, 3, 5, 20} {
			got := ix.search(q, limit, skip)
			want := all[:min(limit, len(all))]
			if len(got) != len(want) {
				t.Fatalf("%q limit %d: %d matches, want %d", text, limit, len(got), len(want))
			}
			for i := range got {
				g, w := got[i], want[i]
				if math.Abs(g.Score-w.Score) > 1e-12 {
					t.Fatalf("%q limit %d: match %d scores %v, want %v", text, limit, i, g.Score, w.Score)
				}
				if g.ID != w.ID && math.Abs(g.Score-w.Score) > 0 {
					t.Fatalf("%q limit %d: match %d is %s, want %s", text, limit, i, g.ID, w.ID)
				}
				compared++
			}
		}
	}
	if compared < 1000 {
		t.Fatalf("only %d matches compared", compared)
	}
}

// fullSearch scores every live document with every term of q and sorts them all.
func fullSearch(ix *index, q query, skip core.ID) []core.Match {
	avg := ix.totalLen / float64(ix.live)
	var rs []result
	for s, d := range ix.docs {
		if d.dead || d.id == skip {
			continue
		}
		score := 0.0
		for t, qw := range q.weights {
			if tf, ok := d.bag.terms[t]; ok {
				score += qw * ix.idf(t) * bm25TF(tf, d.bag.length, avg)
			}
		}
		if score > 0 {
			rs = append(rs, result{slot: s, score: score})
		}
	}
	sort.Slice(rs, func(i, j int) bool {
		if rs[i].score != rs[j].score {
			return rs[i].score > rs[j].score
		}
		return ix.docs[rs[i].slot].id < ix.docs[rs[j].slot].id
	})
	out := []core.Match{}
	for _, r := range rs {
		out = append(out, core.Match{ID: ix.docs[r.slot].id, Score: 1 - math.Exp(-r.score/scoreScale)})
	}
	return out
}
