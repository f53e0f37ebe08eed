package insights

import (
	"math"
	"strings"
)

// cue is one entry of the phrase table: the words after its first, the kind it marks and its valence.
type cue struct {
	rest    []string
	kind    byte
	weight  float64
	valence float64
	bug     bool // a problem cue that says something misbehaves, not only that someone is unhappy
}

// lexicon indexes every cue and sentiment word by its first word, longest phrase first, so matching a
// sentence is one map look-up per token.
type lexicon struct {
	cues map[string][]cue
}

func newLexicon() *lexicon {
	lx := &lexicon{cues: make(map[string][]cue, len(valences)+len(cueSpecs)+len(emojiValences))}
	for _, c := range cueSpecs {
		words := strings.Fields(c.phrase)
		v := c.valence
		if len(words) == 1 && v == 0 {
			v = valences[words[0]]
		}
		kind := c.kind
		if kind == 'f' {
			kind = 'p'
		}
		lx.add(words, cue{kind: kind, weight: c.weight, valence: v,
			bug: c.kind == 'f' || (c.kind == 'p' && !complaintCues[c.phrase])})
	}
	for w, v := range valences {
		if _, ok := lx.single(w); !ok {
			lx.add([]string{w}, cue{valence: v})
		}
	}
	for w, v := range emojiValences {
		lx.add([]string{w}, cue{valence: v})
	}
	return lx
}

func (lx *lexicon) add(words []string, c cue) {
	c.rest = words[1:]
	list := append(lx.cues[words[0]], c)
	// Longest first: "would it be possible" must win over "would be".
	for i := len(list) - 1; i > 0 && len(list[i].rest) > len(list[i-1].rest); i-- {
		list[i], list[i-1] = list[i-1], list[i]
	}
	lx.cues[words[0]] = list
}

func (lx *lexicon) single(w string) (cue, bool) {
	for _, c := range lx.cues[w] {
		if len(c.rest) == 0 {
			return c, true
		}
	}
	return cue{}, false
}

// match finds the longest cue starting at toks[i]; fillers may sit between its words. It returns the index
// after the match.
func (lx *lexicon) match(toks []string, i int) (cue, int, bool) {
	for _, c := range lx.cues[toks[i]] {
		j := i + 1
		ok := true
		for _, w := range c.rest {
			for j < len(toks) && toks[j] != w && fillers[toks[j]] {
				j++
			}
			if j >= len(toks) || toks[j] != w {
				ok = false
				break
			}
			j++
		}
		if ok {
			return c, j, true
		}
	}
	return cue{}, i, false
}

// scores add up the evidence for each kind and the sentence's raw valence. bug is the part of prob that
// says something misbehaves (crashes, errors, data lost, wrong results) rather than that the writer is
// unhappy: app-review studies separate bug reports from ratings and experiences, and so does the extractor.
// opin is the part that only voices displeasure (negative words, complaint cues).
type scores struct{ req, prob, praise, ques, val, bug, opin float64 }

func (s scores) add(o scores, f float64) scores {
	return scores{s.req + o.req*f, s.prob + o.prob*f, s.praise + o.praise*f, s.ques + o.ques*f, s.val + o.val*f,
		s.bug + o.bug*f, s.opin + o.opin*f}
}

// verdict is what one sentence says: its kind (empty when it carries no signal) and sentiment score.
type verdict struct {
	kind  string
	score float64
	used  []bool // tokens that carried kind or sentiment, which are not themes
	sc    scores // the evidence the kind was decided on
	// complaint marks an opinion that reads like a problem but names no misbehaviour; its sentiment stays
	// negative although its kind is praise.
	complaint bool
}

// classify reads one tokenized sentence. Words after "but" weigh three times those before it, as in
// "love the app but it crashes daily".
func (lx *lexicon) classify(toks []string, questionMark bool) verdict {
	used := make([]bool, len(toks))
	var pre, post scores
	but, hypo, lastBreak := false, false, -1
	first := firstContent(toks)
	for i := 0; i < len(toks); {
		t := toks[i]
		switch {
		case t == clauseBreak:
			hypo, lastBreak = false, i
			i++
			continue
		case t == "but" || t == "however":
			but, hypo = true, false
			used[i] = true
			i++
			continue
		case t == "except" && i+1 < len(toks) && (toks[i+1] == "for" || toks[i+1] == "that"):
			// "Great app except for the constant logouts" weighs what follows like "but" does.
			but, hypo = true, false
			used[i], used[i+1] = true, true
			i += 2
			continue
		}
		if hypotheticals[t] {
			hypo = true
		}
		s := &pre
		if but {
			s = &post
		}
		if c, end, ok := lx.match(toks, i); ok {
			lx.score(s, c, toks, i, lastBreak, hypo)
			for k := i; k < end; k++ {
				used[k] = true
			}
			i = end
			continue
		}
		switch {
		case t == "not" || t == "never":
			if brokenBehaviour(lx, toks, i) {
				s.prob += 2.5
				s.bug += 2.5
				if !hypo {
					s.val--
				}
			}
			used[i] = true
		case t == "please" || t == "pls" || t == "plz":
			s.req += 1.5
			if i+1 < len(toks) && imperatives[toks[i+1]] {
				s.req += 1.5
				used[i+1] = true
			}
			used[i] = true
		}
		i++
	}
	sc := pre
	if but {
		sc = scores{}.add(pre, 0.5).add(post, 1.5)
		// Misbehaviour is misbehaviour on either side of "but" ("works everywhere else but the card is
		// declined here").
		sc.bug = pre.bug + post.bug
	}
	if first < len(toks) && !questionMark && imperatives[toks[first]] && !followedByVerb(toks, first) {
		sc.req += 3
		used[first] = true
	}
	// "When I rename a column it breaks" opens half of all bug reports: without a question mark, "when"
	// does not make a question.
	// Nor does "Can't log in on iPad" or "Doesn't sync": a negated auxiliary opens a statement.
	qStart := first < len(toks) && questionStarts[toks[first]] &&
		(questionMark || (toks[first] != "when" && (first+1 >= len(toks) || toks[first+1] != "not") &&
			unmarkedQuestion(toks, first)))
	if (questionMark || qStart) && asksForCapability(toks, first) {
		sc.req += 3
	}
	kind := decide(sc, questionMark || qStart || sc.ques >= 2, toks)
	return verdict{kind: kind, score: sentimentScore(sc.val, kind), used: used, sc: sc}
}

// score applies one cue: a negator just before it flips its valence and cancels its kind ("no complaints",
// "not a single error"), a fixer cancels a problem ("fixed the export bug"), a booster strengthens it.
func (lx *lexicon) score(s *scores, c cue, toks []string, i, lastBreak int, hypo bool) {
	v := c.valence
	if i > 0 {
		if b, ok := boosters[toks[i-1]]; ok {
			v *= 1 + b
		}
	}
	neg, fixed := false, false
	for k := i - 1; k > lastBreak && k >= i-3; k-- {
		neg = neg || negators[toks[k]]
		fixed = fixed || (c.kind == 'p' && fixers[toks[k]])
	}
	switch {
	case fixed:
		return
	case neg:
		v = -v * 0.5
	default:
		switch c.kind {
		case 'r':
			s.req += c.weight
		case 'p':
			s.prob += c.weight
			if c.bug {
				s.bug += c.weight
			} else {
				s.opin += c.weight
			}
		case '+':
			s.praise += c.weight
		case 'q':
			s.ques += c.weight
		}
	}
	if hypo && v > 0 {
		return
	}
	s.val += v
	if c.kind == 0 || neg {
		if v > 0 {
			s.praise += v
		} else {
			s.prob -= v
			s.opin -= v
		}
	}
}

// decide picks the kind. A question that asks for a capability is a request, one that asks why something
// breaks is a problem; otherwise the strongest evidence wins, problems before requests before praise.
func decide(sc scores, question bool, toks []string) string {
	if question {
		switch {
		case sc.req >= 3 && sc.req >= sc.prob:
			return KindRequest
		case sc.prob >= 2.5 && (contains(toks, "why") || (contains(toks, "anyone") && contains(toks, "else"))):
			return KindProblem
		case sc.bug >= 3 && sc.req < sc.prob && contains(toks, "you"):
			// "Can you check on your side?", "Could you fix the export?": asking for a repair is part of
			// the bug report, not a question about the product.
			return KindProblem
		}
		return KindQuestion
	}
	best, kind := sc.prob, KindProblem
	if sc.req > best {
		best, kind = sc.req, KindRequest
	}
	if sc.praise > best {
		best, kind = sc.praise, KindPraise
	}
	if best < 1 {
		return ""
	}
	return kind
}

// sentimentScore squashes the raw valence into −1…1. A problem reported in neutral words is still a
// complaint, and praise in neutral words still pleased someone, so those lean accordingly.
func sentimentScore(val float64, kind string) float64 {
	s := val / math.Sqrt(val*val+15)
	switch {
	case kind == KindProblem && s > -0.05 && s < 0.05:
		s = -0.25
	case kind == KindPraise && s > -0.05 && s < 0.05:
		s = 0.25
	}
	return math.Round(s*1000) / 1000
}

// brokenBehaviour reports whether "not"/"never" at toks[i] negates a verb ("does not sync", "never
// arrives") rather than a sentiment word or a determiner ("not a single error").
func brokenBehaviour(lx *lexicon, toks []string, i int) bool {
	j := i + 1
	for j < len(toks) && fillers[toks[j]] {
		j++
	}
	if j >= len(toks) || toks[j] == clauseBreak || notVerbs[toks[j]] {
		return false
	}
	_, _, ok := lx.match(toks, j)
	return !ok
}

// asksForCapability reports a question like "Could the report also include closed tickets?": a modal,
// a subject that is not the asker, then a verb that asks the product to do something new.
func asksForCapability(toks []string, first int) bool {
	if first+2 >= len(toks) {
		return false
	}
	switch toks[first] {
	case "can", "could", "would", "will":
	default:
		return false
	}
	if s := toks[first+1]; s == "i" || s == "we" || s == "you" {
		return false
	}
	for k := first + 2; k < len(toks) && k <= first+6; k++ {
		if imperatives[toks[k]] {
			return true
		}
	}
	return false
}

// firstContent skips greetings and softeners to the word that opens the sentence's real content.
func firstContent(toks []string) int {
	for i, t := range toks {
		switch t {
		case clauseBreak, "please", "pls", "plz", "kindly", "also", "and", "so", "ok", "okay", "hi", "hello",
			"hey", "btw", "oh", "just", "maybe", "perhaps", "then", "team", "guys", "folks", "all":
			continue
		}
		return i
	}
	return len(toks)
}

// followedByVerb tells a noun that looks like an imperative ("Show more button is broken") from a command.
func followedByVerb(toks []string, i int) bool {
	if i+1 >= len(toks) {
		return false
	}
	switch toks[i+1] {
	case "is", "are", "was", "were", "has", "have", "does", "did", "keeps", "not", "will", "can":
		return true
	}
	return false
}

func contains(toks []string, w string) bool {
	for _, t := range toks {
		if t == w {
			return true
		}
	}
	return false
}

// unmarkedQuestion tells a question typed without its question mark ("does it work offline", "how do I
// export") from a review's clipped statement that opens with the same word ("Does the job", "Was great
// until the update", "What a waste"): an auxiliary asks only when a subject pronoun follows it.
func unmarkedQuestion(toks []string, first int) bool {
	next := ""
	if first+1 < len(toks) {
		next = toks[first+1]
	}
	switch toks[first] {
	case "how", "where", "why", "who", "whom", "whose", "which":
		return true
	case "what":
		return next != "a" && next != "an"
	}
	return subjectPronouns[next]
}

var subjectPronouns = map[string]bool{
	"i": true, "you": true, "we": true, "they": true, "it": true, "there": true, "this": true, "that": true,
	"anyone": true, "anybody": true, "someone": true, "he": true, "she": true,
}
