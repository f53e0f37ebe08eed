package suggest

import (
	"strings"
	"sync"
	"sync/atomic"
	"unicode"
)

// token is one word of a text: its lowercase surface form and its stem.
type token struct {
	word string
	stem string
}

// words splits a text into lowercase words of letters and digits. Apostrophes join ("don't" is "dont",
// "customer's" is "customers"); every other non-word rune separates.
func words(s string) []string {
	var out []string
	var b strings.Builder
	flush := func() {
		if b.Len() > 0 {
			out = append(out, b.String())
			b.Reset()
		}
	}
	for _, r := range s {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(unicode.ToLower(r))
		case unicode.IsMark(r):
			// combining accents carry no meaning for matching
		case r == '\'' || r == '’':
			// joins a contraction or possessive
		case r == '@':
			flush()
			out = append(out, "@")
		default:
			flush()
		}
	}
	flush()
	return out
}

// tokenize is words with their stems.
func tokenize(s string) []token {
	ws := words(s)
	out := make([]token, len(ws))
	for i, w := range ws {
		out[i] = token{word: w, stem: cachedStem(w)}
	}
	return out
}

// stems remembers the stems of words seen, shared by every index: the same few thousand words make up most
// texts, and stemming is most of the cost of indexing one. It stops growing at maxStems words so that a
// flood of odd words cannot grow it without bound.
var (
	stems    sync.Map // word → stem
	stemsLen atomic.Int64
)

const maxStems = 200_000

func cachedStem(w string) string {
	if v, ok := stems.Load(w); ok {
		return v.(string)
	}
	st := stem(w)
	if stemsLen.Load() < maxStems {
		if _, loaded := stems.LoadOrStore(w, st); !loaded {
			stemsLen.Add(1)
		}
	}
	return st
}

// stopWords carry no topic: function words and the politeness and hedging customers wrap requests in.
// They still take part in concept phrases ("sign in"), but never score alone.
var stopWords = setOf(`a about above after again against all am an and any are as at be because been before
being below between both but by can cant could did didnt do does doesnt doing dont down during each either
else even ever every few for from further get gets getting got had has have having he her here hers him his
how i id if im in into is isnt it its itll ive just let lets like ll me more most much must my myself no nor
not now of off on once only or other our ours out over own please pls plz re really same she should so
some such than that thats the their theirs them then there theres these they theyre this those through to
too under until up us very was wasnt we were weve what whats when where whether which while who why will
with wont would wouldnt you youd youll your youre yours yourself also hi hello hey thanks thank cheers
regards team guys love great awesome nice would like want wanted wants need needs needed wish hope maybe
possible possibly perhaps somehow someone something anything everything thing things stuff way ways able
lot lots bit quite still already yet just okay ok yes yeah lol etc eg ie via per`)

func setOf(s string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(s) {
		m[w] = true
	}
	return m
}
