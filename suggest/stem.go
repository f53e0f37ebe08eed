package suggest

import "strings"

// stem reduces an English word to a crude root so that "exporting", "exported" and "exports" meet. It is a
// small suffix stripper, not a full stemmer: what matters is that the same word always gives the same
// root, on the idea's side and the feedback's, and that unrelated words rarely collide.
func stem(w string) string {
	if len(w) <= 3 || !isAlpha(w) {
		return w
	}
	w = plural(w)
	w = verbal(w)
	if !keepWhole[w] {
		w = derivational(derivational(w))
	}
	// a final "e" and a doubled consonant come and go with suffixes ("share"/"sharing", "stop"/"stopped")
	if len(w) > 4 && strings.HasSuffix(w, "e") {
		w = w[:len(w)-1]
	}
	if n := len(w); n >= 4 && w[n-1] == w[n-2] && !isVowel(w[n-1]) && !strings.ContainsRune("lsz", rune(w[n-1])) {
		w = w[:n-1]
	}
	return w
}

// keepWhole are words whose ending only looks like a suffix, where cutting it would meet an unrelated word
// ("customer" is not "custom").
var keepWhole = setOf(`customer user number member folder paper order power letter center matter never
over under after other water corner partner provider header footer border banner`)

func isAlpha(w string) bool {
	for i := 0; i < len(w); i++ {
		if w[i] < 'a' || w[i] > 'z' {
			return false
		}
	}
	return true
}

func isVowel(c byte) bool { return strings.IndexByte("aeiouy", c) >= 0 }

func hasVowel(w string) bool {
	for i := 0; i < len(w); i++ {
		if isVowel(w[i]) {
			return true
		}
	}
	return false
}

// cut removes suffix when what is left is at least min letters long and has a vowel.
func cut(w, suffix, repl string, min int) (string, bool) {
	if !strings.HasSuffix(w, suffix) {
		return w, false
	}
	rest := w[:len(w)-len(suffix)]
	if len(rest) < min || !hasVowel(rest) {
		return w, false
	}
	return rest + repl, true
}

func plural(w string) string {
	switch {
	case strings.HasSuffix(w, "sses"):
		return w[:len(w)-2]
	case strings.HasSuffix(w, "ies") && len(w) > 4:
		return w[:len(w)-3] + "y"
	case strings.HasSuffix(w, "ss"), strings.HasSuffix(w, "us"), strings.HasSuffix(w, "is"):
		return w
	case strings.HasSuffix(w, "s"):
		return w[:len(w)-1]
	}
	return w
}

func verbal(w string) string {
	if r, ok := cut(w, "ied", "y", 2); ok {
		return r
	}
	for _, s := range []string{"ing", "ed"} {
		if r, ok := cut(w, s, "", 3); ok {
			return r
		}
	}
	return w
}

// suffixes maps derivational endings to a shared form, longest first within each family.
var suffixes = []struct{ from, to string }{
	{"ification", "ify"}, {"ication", "y"}, {"isation", "ize"}, {"ization", "ize"}, {"ational", "ate"}, {"ation", "ate"},
	{"fulness", "ful"}, {"iveness", "ive"}, {"ousness", "ous"}, {"ability", "able"}, {"ibility", "ible"},
	{"ically", "ic"}, {"ally", "al"}, {"ously", "ous"}, {"fully", "ful"}, {"ly", ""}, {"ness", ""},
	{"ment", ""}, {"ity", ""}, {"ise", "ize"}, {"able", ""}, {"ible", ""}, {"er", ""}, {"or", ""},
	{"al", ""}, {"ive", ""},
}

func derivational(w string) string {
	for _, s := range suffixes {
		if r, ok := cut(w, s.from, s.to, 4); ok {
			return r
		}
	}
	return w
}
