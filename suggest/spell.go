package suggest

import "sort"

// speller reads an unknown word as a typo of a known one: one letter missing, extra, wrong or two letters
// swapped. Known words are those of the index and of the concept list. Candidates are found through
// single-letter deletions (a word and a typo of it share a deletion), then confirmed by edit distance.
type speller struct {
	known   map[string]int  // surface word → occurrences
	stems   map[string]bool // stems of known words: an unknown inflection of a known word is no typo
	deletes map[string][]string
}

// minTypoLen keeps short words out: among them a one-letter change is too often another real word.
const minTypoLen = 5

func newSpeller() *speller {
	return &speller{known: map[string]int{}, stems: map[string]bool{}, deletes: map[string][]string{}}
}

func (sp *speller) learn(word, st string) {
	if !isAlpha(word) {
		return
	}
	n := sp.known[word]
	sp.known[word] = n + 1
	sp.stems[st] = true
	if n > 0 || len(word) < minTypoLen-1 {
		return
	}
	sp.deletes[word] = append(sp.deletes[word], word)
	for i := range len(word) {
		d := word[:i] + word[i+1:]
		sp.deletes[d] = append(sp.deletes[d], word)
	}
}

// correct returns the known word t is most likely a typo of.
func (sp *speller) correct(t token) (token, bool) {
	w := t.word
	if len(w) < minTypoLen || !isAlpha(w) || stopWords[w] || sp.known[w] > 0 || sp.stems[t.stem] {
		return t, false
	}
	var cands []string
	look := func(k string) {
		for _, c := range sp.deletes[k] {
			if c != w && editDistance(w, c) <= 1 {
				cands = append(cands, c)
			}
		}
	}
	look(w)
	for i := range len(w) {
		look(w[:i] + w[i+1:])
	}
	if len(cands) == 0 {
		return t, false
	}
	// The most frequent known word wins; ties go to the alphabetically first, so the answer is stable.
	sort.Slice(cands, func(i, j int) bool {
		if a, b := sp.known[cands[i]], sp.known[cands[j]]; a != b {
			return a > b
		}
		return cands[i] < cands[j]
	})
	return token{word: cands[0], stem: cachedStem(cands[0])}, true
}

// editDistance is the optimal string alignment distance (insert, delete, substitute, swap neighbours).
func editDistance(a, b string) int {
	la, lb := len(a), len(b)
	d := make([][]int, la+1)
	for i := range d {
		d[i] = make([]int, lb+1)
		d[i][0] = i
	}
	for j := 0; j <= lb; j++ {
		d[0][j] = j
	}
	for i := 1; i <= la; i++ {
		for j := 1; j <= lb; j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[la][lb]
}
