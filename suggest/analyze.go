package suggest

// Field weights: a word of the title says more about what an idea is than a word of its description, and
// a named concept more than any one word.
const (
	titleWeight   = 2.0
	textWeight    = 1.0
	conceptWeight = 1.5
	// correctedWeight discounts a query word that was read as a typo of another: the reading may be wrong.
	correctedWeight = 0.7
	// themeWeight is for insight themes: derived from the same text, they mostly confirm what it says.
	themeWeight = 0.5
)

// bag is a text as weighted terms: word stems and concept terms.
type bag struct {
	terms  map[string]float64
	length float64
}

// add puts one field's tokens into the bag with weight w.
func (b *bag) add(lex *lexicon, toks []token, w float64) {
	for _, t := range toks {
		if stopWords[t.word] || len(t.word) < 2 && t.word != "@" {
			continue
		}
		b.put(t.stem, w)
	}
	lex.match(toks, func(pos, c int) {
		b.put(conceptTerm(c), w*conceptWeight)
	})
}

func (b *bag) put(term string, w float64) {
	b.terms[term] += w
	b.length += w
}

// docBag analyses an idea or feature; seen hears every token.
func docBag(lex *lexicon, title, text string, seen func(token)) *bag {
	head, body := tokenize(title), tokenize(text)
	b := &bag{terms: make(map[string]float64, len(head)+len(body))}
	b.add(lex, head, titleWeight)
	b.add(lex, body, textWeight)
	for _, t := range head {
		seen(t)
	}
	for _, t := range body {
		seen(t)
	}
	return b
}

// query is an asking text as weighted distinct terms.
type query struct {
	weights map[string]float64
	surface map[string]string
}

// queryOf analyses an asking text: each distinct term counts once (a customer repeating a word is not
// asking for it more), words the index does not know are read as typos of ones it does when one is near.
func queryOf(lex *lexicon, sp *speller, title, text string, themes []string) query {
	q := query{weights: map[string]float64{}, surface: map[string]string{}}
	set := func(term, word string, w float64) {
		if w > q.weights[term] {
			q.weights[term] = w
			if word != "" {
				q.surface[term] = word
			}
		}
	}
	field := func(s string, w float64) {
		toks := tokenize(s)
		corrected := make([]bool, len(toks))
		for i, t := range toks {
			if fix, ok := sp.correct(t); ok {
				toks[i] = fix
				corrected[i] = true
			}
		}
		for i, t := range toks {
			if stopWords[t.word] || len(t.word) < 2 && t.word != "@" {
				continue
			}
			tw := w
			if corrected[i] {
				tw *= correctedWeight
			}
			set(t.stem, t.word, tw)
		}
		lex.match(toks, func(pos, c int) {
			tw := w * conceptWeight
			if corrected[pos] {
				tw *= correctedWeight
			}
			set(conceptTerm(c), "", tw)
		})
	}
	field(title+"\n"+text, 1)
	for _, th := range themes {
		field(th, themeWeight)
	}
	return q
}
