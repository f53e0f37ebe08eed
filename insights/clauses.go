package insights

import (
	"math"
	"strings"
	"unicode/utf8"
)

// minBugEvidence is how much misbehaviour (crash, error, lost data, wrong result, "does not open") a
// sentence must describe to be a bug report. Below it, a sentence the model reads as a problem is a rating
// or an experience ("2 stars, too many ads", "way too expensive"): an opinion, reported as kind praise with
// its negative sentiment, so problems stay the bug reports a team can act on.
const minBugEvidence = 1.5

// sureProblem is how sure the model must be of a problem in which the lexicon finds no misbehaviour.
const sureProblem = 0.6

// refineKind applies that rule to the model's kind, and its converse: a sentence that describes
// misbehaviour in plain words without praising anything is a bug report even where the model hesitates.
// An opinion that was read as a problem is a complaint, so it keeps a negative sentiment however neutral
// its words ("too many ads").
func refineKind(kind string, v verdict, toks []string, pProblem float64) (string, verdict) {
	switch {
	case kind == KindProblem && v.sc.bug < minBugEvidence &&
		(v.sc.opin >= minBugEvidence || mentionsOpinionTopic(toks) || pProblem < sureProblem):
		v.score = math.Min(v.score, -0.25)
		v.complaint = true
		return KindPraise, v
	case kind == KindPraise && v.sc.bug >= 3 && v.sc.val <= 0:
		return KindProblem, v
	}
	return kind, v
}

// opinionTopics are what ratings and experiences complain about without anything misbehaving: ads, the
// price, the rating itself, the business model.
var opinionTopics = setOf(`ad ads advert adverts advertising advertisement advertisements popup popups commercials
price prices pricing priced pricey expensive overpriced cost costs money subscription subscriptions paywall
upsell upselling upsells gems microtransactions star stars rating 1/5 2/5 3/5 uninstalled uninstalling
uninstall deleted avoid scam`)

func mentionsOpinionTopic(toks []string) bool {
	for _, t := range toks {
		if opinionTopics[t] {
			return true
		}
	}
	return false
}

// clause is part of a sentence with a kind of its own.
type clause struct {
	sp        span
	kind      string
	complaint bool // an opinion that voices displeasure
}

// clauseWords open a clause that may carry a different kind from the one before it ("the export is broken
// and I love the new reports", "great app but it crashes daily", "missing dark mode, otherwise great").
// contrasts always do; "and" and a comma do only outside a wish, whose every part is the wish ("it would be
// great if it synced and kept my colours").
var clauseWords = map[string]bool{
	"and": true, "but": true, "though": true, "although": true, "however": true, "otherwise": true,
	"except": true,
}

var contrasts = map[string]bool{
	"but": true, "though": true, "although": true, "however": true, "otherwise": true, "except": true,
}

// clauseCuts returns the byte offsets in text[sp.start:sp.end] where a clause may start.
func clauseCuts(text string, sp span, cuts []int) []int {
	cuts = cuts[:0]
	s := text[sp.start:sp.end]
	wish := false
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == ';':
			cuts = append(cuts, sp.start+i+size)
			wish = false
		case r == ',' && !wish:
			cuts = append(cuts, sp.start+i+size)
		case r == ' ' && i+1 < len(s):
			w := s[i+1:]
			if k := strings.IndexAny(w, " ,;?!."); k >= 0 {
				w = w[:k]
			}
			w = strings.ToLower(w)
			switch {
			case contrasts[w]:
				cuts = append(cuts, sp.start+i+1)
				wish = false
			case clauseWords[w] && !wish:
				cuts = append(cuts, sp.start+i+1)
			case hypotheticals[w]:
				wish = true
			}
		}
		i += size
	}
	return cuts
}

// splitClauses reads a sentence clause by clause. It returns the clauses when they carry different kinds,
// adjacent clauses of one kind (or of none) joined, and nil when the sentence says one thing. The clause
// of the sentence's own kind comes first, so the insight that sums up the sentence leads.
func (b *Builtin) splitClauses(text string, sp span, kind string, v verdict, toks []string, feats []uint32) []clause {
	// Reading clause by clause costs a model pass per clause; a sentence whose cues point to one kind
	// only says one thing.
	kinds := 0
	for _, e := range [...]float64{v.sc.req, v.sc.prob, v.sc.praise, v.sc.ques} {
		if e >= 1 {
			kinds++
		}
	}
	if kinds < 2 {
		return nil
	}
	cuts := clauseCuts(text, sp, nil)
	if len(cuts) == 0 {
		return nil
	}
	var parts []clause
	start := sp.start
	for i := 0; i <= len(cuts); i++ {
		end := sp.end
		if i < len(cuts) {
			end = cuts[i]
		}
		piece := clauseSpan(text, start, end)
		if piece.end <= piece.start {
			start = end
			continue
		}
		quote := text[piece.start:piece.end]
		toks = tokenize(quote, toks[:0])
		c := clause{sp: piece}
		if countWords(toks) >= 2 {
			q := strings.ContainsRune(quote, '?')
			v := b.lx.classify(toks, q)
			feats = sentenceFeatures(toks, q, v, feats)
			p := b.m.predict(feats)
			// A clause asks only with its own question mark: "which is a bit much" is a remark.
			if k := argmax(p[:]); k > 0 && v.kind != "" && (modelClasses[k] != KindQuestion || q) {
				var rv verdict
				c.kind, rv = refineKind(modelClasses[k], v, toks, p[1])
				c.complaint = c.kind == KindPraise && (rv.complaint || v.sc.opin > v.sc.praise)
			}
		}
		parts = append(parts, c)
		start = end
	}
	// A complaint beside a bug report or a request is its reason ("please add dark mode, my eyes hurt"):
	// it joins that clause rather than standing as an opinion of its own.
	for i := range parts {
		if !parts[i].complaint {
			continue
		}
		for _, j := range []int{i - 1, i + 1} {
			if j >= 0 && j < len(parts) && (parts[j].kind == KindProblem || parts[j].kind == KindRequest) {
				parts[i].kind, parts[i].complaint = "", false
				break
			}
		}
	}
	// Join a clause without a kind to the clause it leads into ("but when I reach level 50 | it kicks me
	// out"), the last one to the clause before it; then join neighbours of one kind.
	for i := len(parts) - 2; i >= 0; i-- {
		if parts[i].kind == "" {
			parts[i+1].sp.start = parts[i].sp.start
			parts = append(parts[:i], parts[i+1:]...)
		}
	}
	merged := parts[:0]
	for _, c := range parts {
		if n := len(merged); n > 0 && (c.kind == "" || c.kind == merged[n-1].kind) {
			merged[n-1].sp.end = c.sp.end
			continue
		}
		if n := len(merged); n > 0 && merged[n-1].kind == "" {
			c.sp.start = merged[n-1].sp.start
			merged[n-1] = c
			continue
		}
		merged = append(merged, c)
	}
	if len(merged) < 2 {
		return nil
	}
	for i, c := range merged {
		if c.kind == kind && i > 0 {
			copy(merged[1:i+1], merged[:i])
			merged[0] = c
			break
		}
	}
	return merged
}

// clauseSpan trims spaces, separators and a leading clause word from a piece of a sentence.
func clauseSpan(text string, start, end int) span {
	for {
		start, end = trimSpan(text, start, end)
		for end > start && strings.ContainsRune(",;", rune(text[end-1])) {
			end--
		}
		for start < end && strings.ContainsRune(",;", rune(text[start])) {
			start++
		}
		start, end = trimSpan(text, start, end)
		k := strings.IndexByte(text[start:end], ' ')
		if k <= 0 || !clauseWords[strings.ToLower(text[start:start+k])] {
			return span{start, end}
		}
		start += k
	}
}

func countWords(toks []string) int {
	n := 0
	for _, t := range toks {
		if t != clauseBreak {
			n++
		}
	}
	return n
}
