package suggest

import (
	"slices"
	"strings"
	"sync"
)

// phrase is one way of naming a concept, as stems.
type phrase struct {
	concept int
	stems   []string
}

// lexicon is the compiled concept list: phrases indexed by their first stem.
type lexicon struct {
	names   []string
	phrases []phrase
	byFirst map[string][]int
	words   map[string]bool // every surface word of every phrase, for spelling correction
}

var defaultLexicon = sync.OnceValue(func() *lexicon { return compile() })

func compile() *lexicon {
	l := &lexicon{byFirst: map[string][]int{}, words: map[string]bool{}}
	for ci, c := range concepts {
		l.names = append(l.names, c.name)
		seen := map[string]bool{}
		for _, p := range strings.Split(c.phrases, "|") {
			toks := tokenize(p)
			// stop words alone would fire on every "hi team", "more" and "up the"
			if allStopWords(toks) {
				continue
			}
			stems := make([]string, len(toks))
			for i, t := range toks {
				stems[i] = t.stem
				l.words[t.word] = true
			}
			key := strings.Join(stems, " ")
			if seen[key] {
				continue
			}
			seen[key] = true
			l.byFirst[stems[0]] = append(l.byFirst[stems[0]], len(l.phrases))
			l.phrases = append(l.phrases, phrase{concept: ci, stems: stems})
		}
	}
	return l
}

func allStopWords(toks []token) bool {
	for _, t := range toks {
		if !stopWords[t.word] && !stopWords[t.stem] {
			return false
		}
	}
	return true
}

// conceptTerm is the index term of concept i; the prefix keeps it apart from every word.
func conceptTerm(i int) string { return "~" + concepts[i].name }

// conceptName is the display name of an index term made by conceptTerm, "" for a word.
func conceptName(term string) string {
	if strings.HasPrefix(term, "~") {
		return term[1:]
	}
	return ""
}

// match returns, per token position where a phrase starts, the concepts named. A phrase of n words matches
// when its other words occur within n+1 tokens either side of its first: customers reorder and pad
// ("export to csv", "csv export", "a mode that is dark").
func (l *lexicon) match(toks []token, emit func(pos, concept int)) {
	var done []int // concepts already emitted at this position
	for i, t := range toks {
		done = done[:0]
		for _, pi := range l.byFirst[t.stem] {
			p := l.phrases[pi]
			if slices.Contains(done, p.concept) {
				continue
			}
			if len(p.stems) == 1 || l.near(toks, i, p.stems[1:], len(p.stems)+1) {
				done = append(done, p.concept)
				emit(i, p.concept)
			}
		}
	}
}

func (l *lexicon) near(toks []token, at int, stems []string, span int) bool {
	lo, hi := max(0, at-span), min(len(toks), at+span+1)
	for _, s := range stems {
		found := false
		for j := lo; j < hi; j++ {
			if j != at && toks[j].stem == s {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}
