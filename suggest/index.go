package suggest

import (
	"math"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/feedbridge/feedbridge/core"
)

// BM25 parameters. b is below the usual 0.75: ideas are short, and a long description is more often
// detail than a sign that the idea is about many things.
const (
	bm25K1 = 1.2
	bm25B  = 0.5
	// scoreScale maps a raw score onto 0…1 (1-e^(-raw/scale)); raw scores grow with the number and rarity
	// of shared terms, so the scale is about what two or three rare shared terms add up to.
	scoreScale = 8.0
	// maxReasonTerms bounds the reason text.
	maxReasonTerms = 4
)

// doc is one indexed Idea or Feature.
type doc struct {
	id      core.ID
	version string // what the index last read of it (updatedAt, title and text), to skip unchanged rereads
	bag     *bag
	length  float64 // bag.length, kept here so that scoring a posting reads only this slice
	dead    bool
}

type posting struct {
	slot int32
	tf   float32
}

// index is the BM25 index of one workspace. Replacing or removing a document marks its slot dead; dead
// slots stay in the postings until the next rebuild compacts them.
type index struct {
	lex      *lexicon
	spell    *speller
	docs     []doc
	slots    map[core.ID]int
	post     map[string][]posting
	df       map[string]int
	live     int
	totalLen float64
}

func newIndex(lex *lexicon) *index {
	ix := &index{lex: lex, spell: newSpeller(), slots: map[core.ID]int{}, post: map[string][]posting{}, df: map[string]int{}}
	for w := range lex.words {
		ix.spell.learn(w, cachedStem(w))
	}
	return ix
}

// put adds or replaces a document. version identifies its content: the same version again is a no-op.
func (ix *index) put(id core.ID, version, title, text string) {
	if s, ok := ix.slots[id]; ok {
		if ix.docs[s].version == version {
			return
		}
		ix.remove(id)
	}
	b := docBag(ix.lex, title, text, func(t token) { ix.spell.learn(t.word, t.stem) })
	slot := len(ix.docs)
	ix.docs = append(ix.docs, doc{id: id, version: version, bag: b, length: b.length})
	ix.slots[id] = slot
	for t, tf := range b.terms {
		ix.post[t] = append(ix.post[t], posting{slot: int32(slot), tf: float32(tf)})
		ix.df[t]++
	}
	ix.live++
	ix.totalLen += b.length
}

func (ix *index) remove(id core.ID) {
	s, ok := ix.slots[id]
	if !ok {
		return
	}
	d := &ix.docs[s]
	d.dead = true
	for t := range d.bag.terms {
		ix.df[t]--
	}
	ix.live--
	ix.totalLen -= d.bag.length
	delete(ix.slots, id)
	d.bag, d.length = &bag{terms: nil, length: 0}, 0
}

// deadShare is the part of the slots that are dead, which decides when a rebuild is due.
func (ix *index) deadShare() float64 {
	if len(ix.docs) == 0 {
		return 0
	}
	return float64(len(ix.docs)-ix.live) / float64(len(ix.docs))
}

// result is one scored document.
type result struct {
	slot  int
	score float64
}

// search returns up to limit documents sharing something with q, best first, leaving skip out.
//
// Terms are scored rarest first (by the most each can add to a document, which is bounded by the
// idf), in the manner of MaxScore: once the documents found so far hold limit scores that the terms
// still to come could not give a document yet unseen, those terms only add to the documents already
// found. In a large workspace the common words of a text are in most documents, and walking their
// postings would be most of the cost while they cannot change which documents come first.
func (ix *index) search(q query, limit int, skip core.ID) []core.Match {
	if ix.live == 0 || limit <= 0 {
		return nil
	}
	avg := ix.totalLen / float64(ix.live)
	type qterm struct {
		ps     []posting
		w, max float64 // the term's weight times its idf, and the most it can add to one document
		term   string
	}
	terms := make([]qterm, 0, len(q.weights))
	for t, qw := range q.weights {
		if ps := ix.post[t]; len(ps) > 0 {
			w := qw * ix.idf(t)
			terms = append(terms, qterm{ps: ps, w: w, max: w * (bm25K1 + 1), term: t})
		}
	}
	sort.Slice(terms, func(i, j int) bool {
		if terms[i].max != terms[j].max {
			return terms[i].max > terms[j].max
		}
		return terms[i].term < terms[j].term
	})
	rest := make([]float64, len(terms)+1) // rest[i]: the most terms[i:] can add to one document
	for i := len(terms) - 1; i >= 0; i-- {
		rest[i] = rest[i+1] + terms[i].max
	}
	buf := scoreBufs.Get().(*[]float64)
	if len(*buf) < len(ix.docs) {
		*buf = make([]float64, len(ix.docs))
	}
	scores := (*buf)[:len(ix.docs)]
	var (
		found []int32 // the slots with a score that may still make the top limit; the others score 0
		open  = true  // whether a document not yet found may still make it
	)
	for i, t := range terms {
		switch {
		case open:
			for _, p := range t.ps {
				d := &ix.docs[p.slot]
				if d.dead {
					continue
				}
				if scores[p.slot] == 0 {
					found = append(found, p.slot)
				}
				scores[p.slot] += t.w * bm25TF(float64(p.tf), d.length, avg)
			}
		case len(found)*4 < len(t.ps):
			// Far fewer found documents than postings: both are in slot order, so each found document's
			// posting is sought ahead of the last one, in steps that double, rather than walking them all.
			ps := t.ps
			for _, s := range found {
				k := seek(ps, s)
				ps = ps[k:]
				if len(ps) == 0 {
					break
				}
				if ps[0].slot == s {
					scores[s] += t.w * bm25TF(float64(ps[0].tf), ix.docs[s].length, avg)
				}
			}
		default:
			for _, p := range t.ps {
				if scores[p.slot] > 0 {
					scores[p.slot] += t.w * bm25TF(float64(p.tf), ix.docs[p.slot].length, avg)
				}
			}
		}
		if i+1 == len(terms) {
			break
		}
		// Scores only grow, so the limit-th best score so far is a floor of the last one's: a document
		// that the terms to come cannot lift to it is out, and so is every document not found yet once
		// that floor is above all the terms to come can give.
		floor := kthScore(ix, scores, found, limit, skip)
		if floor <= rest[i+1] && open {
			continue
		}
		if open {
			// From here on found only shrinks; in slot order, as postings are, it can be sought in them.
			slices.Sort(found)
			open = false
		}
		kept := found[:0]
		for _, s := range found {
			if scores[s]+rest[i+1] >= floor {
				kept = append(kept, s)
			} else {
				scores[s] = 0
			}
		}
		found = kept
	}
	rs := topK(ix, scores, found, limit, skip)
	for _, s := range found {
		scores[s] = 0
	}
	scoreBufs.Put(buf)
	out := make([]core.Match, len(rs))
	for i, r := range rs {
		d := &ix.docs[r.slot]
		out[i] = core.Match{ID: d.id, Score: 1 - math.Exp(-r.score/scoreScale), Reason: ix.reason(q, d, avg)}
	}
	return out
}

// seek is the index of the first of ps, which are in slot order, whose slot is not below s: a galloping
// search, so that seeking ascending slots one after another costs about the log of each gap.
func seek(ps []posting, s int32) int {
	hi := 1
	for hi < len(ps) && ps[hi-1].slot < s {
		hi *= 2
	}
	lo := hi / 2
	hi = min(hi, len(ps))
	return lo + sort.Search(hi-lo, func(i int) bool { return ps[lo+i].slot >= s })
}

// scoreBufs keeps the per-document score arrays of searches, which are as long as an index has slots;
// every search leaves its array all zero.
var scoreBufs = sync.Pool{New: func() any { return new([]float64) }}

// kthScore is the limit-th best score among the found slots other than skip's, 0 when there are fewer.
func kthScore(ix *index, scores []float64, found []int32, limit int, skip core.ID) float64 {
	if len(found) < limit {
		return 0
	}
	best := make([]float64, 0, limit+1) // descending
	for _, s := range found {
		v := scores[s]
		if len(best) == limit && v <= best[limit-1] || ix.docs[s].id == skip {
			continue
		}
		i := sort.Search(len(best), func(i int) bool { return v > best[i] })
		best = append(best, 0)
		copy(best[i+1:], best[i:])
		best[i] = v
		if len(best) > limit {
			best = best[:limit]
		}
	}
	if len(best) < limit {
		return 0
	}
	return best[limit-1]
}

// topK keeps the limit best of the found slots in order (score, then id), in one pass with an insertion
// into a short sorted slice: sorting every document that shares a word would cost more than the scoring.
// The order is total, so the answer does not depend on the order the slots come in.
func topK(ix *index, scores []float64, found []int32, limit int, skip core.ID) []result {
	better := func(a, b result) bool {
		if a.score != b.score {
			return a.score > b.score
		}
		return ix.docs[a.slot].id < ix.docs[b.slot].id
	}
	rs := make([]result, 0, limit+1)
	for _, s := range found {
		r := result{slot: int(s), score: scores[s]}
		if len(rs) == limit && !better(r, rs[limit-1]) {
			continue
		}
		if ix.docs[s].id == skip {
			continue
		}
		i := sort.Search(len(rs), func(i int) bool { return better(r, rs[i]) })
		rs = append(rs, result{})
		copy(rs[i+1:], rs[i:])
		rs[i] = r
		if len(rs) > limit {
			rs = rs[:limit]
		}
	}
	return rs
}

func (ix *index) idf(t string) float64 {
	n, df := float64(ix.live), float64(ix.df[t])
	return math.Log(1 + (n-df+0.5)/(df+0.5))
}

func bm25TF(tf, length, avg float64) float64 {
	return tf * (bm25K1 + 1) / (tf + bm25K1*(1-bm25B+bm25B*length/avg))
}

// reason names the shared terms that weighed most: concepts by their name, words as the asking text wrote
// them (the index keeps no surface forms, to stay small).
func (ix *index) reason(q query, d *doc, avg float64) string {
	type part struct {
		name string
		w    float64
	}
	var parts []part
	for t, qw := range q.weights {
		tf, ok := d.bag.terms[t]
		if !ok {
			continue
		}
		name := conceptName(t)
		if name == "" {
			name = q.surface[t]
		}
		parts = append(parts, part{name, qw * ix.idf(t) * bm25TF(tf, d.bag.length, avg)})
	}
	sort.Slice(parts, func(i, j int) bool {
		if parts[i].w != parts[j].w {
			return parts[i].w > parts[j].w
		}
		return parts[i].name < parts[j].name
	})
	var names []string
	for _, p := range parts {
		if len(names) == maxReasonTerms {
			break
		}
		if p.name != "" && !containsWord(names, p.name) {
			names = append(names, p.name)
		}
	}
	return "both mention: " + strings.Join(names, ", ")
}

// containsWord reports whether name is already said by one of names ("export" by "csv export").
func containsWord(names []string, name string) bool {
	for _, n := range names {
		if n == name || strings.Contains(" "+n+" ", " "+name+" ") {
			return true
		}
	}
	return false
}

// match answers a core.MatchQuery from the index.
func (ix *index) match(q core.MatchQuery) []core.Match {
	return ix.search(queryOf(ix.lex, ix.spell, q.Title, q.Text, q.Themes), q.Limit, q.Skip)
}
