package insights

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// clauseBreak is the token that stands for a comma, semicolon, colon, dash or bracket: negation, "would" and
// phrase matches do not reach across it.
const clauseBreak = ","

// tokenize lowercases a sentence and cuts it into words, expanding contractions ("doesn't" → "does not",
// "I'd" → "i would") so the cue tables only need one spelling. Emoji are tokens of their own.
func tokenize(sentence string, dst []string) []string {
	s := strings.ToLower(sentence)
	if strings.ContainsRune(s, '’') {
		s = strings.ReplaceAll(s, "’", "'")
	}
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case isWordRune(r):
			j := i + size
			for j < len(s) {
				r2, s2 := utf8.DecodeRuneInString(s[j:])
				if isWordRune(r2) {
					j += s2
					continue
				}
				// An apostrophe joins a word only when a letter follows ("don't", not "users' ").
				if r2 == '\'' && j+1 < len(s) {
					r3, _ := utf8.DecodeRuneInString(s[j+1:])
					if unicode.IsLetter(r3) {
						j += s2
						continue
					}
				}
				break
			}
			dst = appendWord(dst, s[i:j])
			i = j
		case isEmoji(r):
			dst = append(dst, s[i:i+size])
			i += size
		default:
			if isBreakRune(r) && len(dst) > 0 && dst[len(dst)-1] != clauseBreak {
				dst = append(dst, clauseBreak)
			}
			i += size
		}
	}
	if n := len(dst); n > 0 && dst[n-1] == clauseBreak {
		dst = dst[:n-1]
	}
	return dst
}

func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r) }

func isBreakRune(r rune) bool {
	switch r {
	case ',', ';', ':', '(', ')', '[', ']', '–', '—', '"', '“', '”', '!', '?', '/':
		return true
	}
	return false
}

func isEmoji(r rune) bool {
	return (r >= 0x1F300 && r <= 0x1FAFF) || (r >= 0x2600 && r <= 0x27BF)
}

// contractions without an apostrophe that people type anyway.
var bareContractions = map[string][2]string{
	"dont": {"do", "not"}, "doesnt": {"does", "not"}, "didnt": {"did", "not"}, "cant": {"can", "not"},
	"cannot": {"can", "not"}, "isnt": {"is", "not"}, "arent": {"are", "not"}, "wasnt": {"was", "not"},
	"werent": {"were", "not"}, "couldnt": {"could", "not"}, "wouldnt": {"would", "not"},
	"shouldnt": {"should", "not"}, "havent": {"have", "not"}, "hasnt": {"has", "not"}, "wont": {"will", "not"},
	"im": {"i", "am"}, "ive": {"i", "have"}, "youre": {"you", "are"}, "thats": {"that", "is"},
}

// isPronounS lists the words whose "'s" is "is" rather than a possessive.
var isPronounS = map[string]bool{
	"it": true, "that": true, "there": true, "what": true, "here": true, "he": true, "she": true,
	"who": true, "where": true, "how": true, "everything": true, "nothing": true, "something": true,
	"this": true, "when": true, "why": true,
}

func appendWord(dst []string, w string) []string {
	if pair, ok := bareContractions[w]; ok {
		return append(dst, pair[0], pair[1])
	}
	k := strings.IndexByte(w, '\'')
	if k < 0 {
		return append(dst, w)
	}
	base, suffix := w[:k], w[k+1:]
	switch suffix {
	case "t":
		switch base {
		case "can", "ca":
			return append(dst, "can", "not")
		case "won", "wo":
			return append(dst, "will", "not")
		case "shan":
			return append(dst, "shall", "not")
		}
		if strings.HasSuffix(base, "n") {
			return append(dst, base[:len(base)-1], "not")
		}
	case "d":
		return append(dst, base, "would")
	case "ll":
		return append(dst, base, "will")
	case "re":
		return append(dst, base, "are")
	case "ve":
		return append(dst, base, "have")
	case "m":
		return append(dst, base, "am")
	case "s":
		if base == "let" {
			return append(dst, "let", "us")
		}
		if isPronounS[base] {
			return append(dst, base, "is")
		}
		return append(dst, base)
	}
	return append(dst, strings.ReplaceAll(w, "'", ""))
}

// singularExceptions end in "s" but are not plurals (or their stem would be wrong).
var singularExceptions = map[string]bool{
	"ios": true, "macos": true, "sms": true, "news": true, "analytics": true, "status": true,
	"business": true, "series": true, "always": true, "this": true, "its": true, "was": true, "has": true,
	"does": true, "yes": true, "plus": true, "canvas": true, "alias": true, "atlas": true, "https": true,
	"aws": true, "gdpr": true, "saas": true, "kudos": true, "chaos": true, "bonus": true, "focus": true,
	"campus": true, "virus": true, "corpus": true, "nexus": true, "less": true, "dns": true, "cors": true,
	"sso": true, "us": true, "is": true, "as": true, "thus": true, "perhaps": true, "bus": true,
	"settings": false, "windows": true, "teams": true, "jenkins": true, "kubernetes": true, "postgres": true,
	"diagnosis": true, "basis": true, "axis": true, "lens": true, "atlassian": true, "access": true,
}

// singular strips an English plural ending so "reports" and "report" become one theme.
func singular(w string) string {
	if len(w) <= 3 || singularExceptions[w] || !strings.HasSuffix(w, "s") {
		return w
	}
	switch {
	case strings.HasSuffix(w, "ss"), strings.HasSuffix(w, "us"), strings.HasSuffix(w, "is"):
		return w
	case strings.HasSuffix(w, "ies") && len(w) > 4:
		return w[:len(w)-3] + "y"
	case strings.HasSuffix(w, "sses"), strings.HasSuffix(w, "ches"), strings.HasSuffix(w, "shes"),
		strings.HasSuffix(w, "xes"), strings.HasSuffix(w, "zzes"):
		return w[:len(w)-2]
	}
	return w[:len(w)-1]
}
