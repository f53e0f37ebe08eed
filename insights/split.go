package insights

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// span is a sentence as byte offsets into the text it came from, so a quote is always an exact substring.
type span struct{ start, end int }

// maxSentence bounds one quote: text without punctuation (a pasted log, a run-on message) would otherwise
// become a single quote of many kilobytes.
const maxSentence = 600

// abbreviations end with a period that does not end the sentence. Lowercase, without the final period.
var abbreviations = map[string]bool{
	"e.g": true, "i.e": true, "etc": true, "vs": true, "mr": true, "mrs": true, "ms": true, "dr": true,
	"prof": true, "approx": true, "incl": true, "no": true, "st": true, "jr": true, "sr": true, "inc": true,
	"ltd": true, "corp": true, "fig": true, "cf": true, "min": true, "max": true, "ca": true, "dept": true,
	"a.m": true, "p.m": true, "u.s": true, "esp": true, "resp": true,
}

// splitSentences cuts plain text into sentences. Lines and tabs are hard breaks (lists and e-mails put one
// thought per line, exports join a title and its text with a tab), quoted e-mail lines ("> …") are
// skipped, and list bullets are not part of a sentence.
func splitSentences(text string) []span {
	var out []span
	for pos := 0; pos < len(text); {
		end := strings.IndexAny(text[pos:], "\n\t")
		if end < 0 {
			end = len(text)
		} else {
			end += pos
		}
		out = splitLine(text, pos, end, out)
		pos = end + 1
	}
	return out
}

func splitLine(text string, start, end int, out []span) []span {
	start, end = trimSpan(text, start, end)
	if start >= end || text[start] == '>' {
		return out
	}
	start = skipBullet(text, start, end)
	sent := start
	for i := start; i < end; {
		r, size := utf8.DecodeRuneInString(text[i:end])
		if r != '.' && r != '!' && r != '?' && r != '…' {
			i += size
			continue
		}
		j := i
		for j < end {
			r2, s2 := utf8.DecodeRuneInString(text[j:end])
			if r2 != '.' && r2 != '!' && r2 != '?' && r2 != '…' {
				break
			}
			j += s2
		}
		for j < end {
			r2, s2 := utf8.DecodeRuneInString(text[j:end])
			if !strings.ContainsRune(`)]"'”’»`, r2) {
				break
			}
			j += s2
		}
		if j < end && !isSpaceByte(text[j]) {
			i = j
			continue
		}
		if j-i == 1 && text[i] == '.' && isAbbreviation(text, sent, i) {
			i = j
			continue
		}
		out = emit(text, sent, j, out)
		sent, i = j, j
	}
	return emit(text, sent, end, out)
}

// emit appends a sentence, trimmed; pieces without a letter or digit ("...", "--") are dropped, and an
// over-long piece is cut at word boundaries into quotes of at most maxSentence bytes.
func emit(text string, start, end int, out []span) []span {
	start, end = trimSpan(text, start, end)
	for end-start > maxSentence {
		cut := strings.LastIndexAny(text[start:start+maxSentence], " \t")
		if cut <= 0 {
			cut = maxSentence
			for cut > 0 && !utf8.RuneStart(text[start+cut]) {
				cut--
			}
		}
		out = emit(text, start, start+cut, out)
		start, end = trimSpan(text, start+cut, end)
	}
	if start < end && hasWordRune(text[start:end]) {
		out = append(out, span{start, end})
	}
	return out
}

func trimSpan(text string, start, end int) (int, int) {
	for start < end {
		r, size := utf8.DecodeRuneInString(text[start:end])
		if !unicode.IsSpace(r) {
			break
		}
		start += size
	}
	for end > start {
		r, size := utf8.DecodeLastRuneInString(text[start:end])
		if !unicode.IsSpace(r) {
			break
		}
		end -= size
	}
	return start, end
}

// skipBullet steps over a list marker ("- ", "* ", "• ", "1. ", "2) ") at the start of a line.
func skipBullet(text string, start, end int) int {
	r, size := utf8.DecodeRuneInString(text[start:end])
	i := start
	switch {
	case strings.ContainsRune("-*•·–—+", r):
		i += size
	case r >= '0' && r <= '9':
		for i < end && i-start < 3 && text[i] >= '0' && text[i] <= '9' {
			i++
		}
		if i >= end || (text[i] != '.' && text[i] != ')') {
			return start
		}
		i++
	default:
		return start
	}
	if i >= end || !isSpaceByte(text[i]) {
		return start
	}
	s, _ := trimSpan(text, i, end)
	return s
}

// isAbbreviation reports whether the word ending at the period text[dot] is a known abbreviation or a
// single letter (an initial).
func isAbbreviation(text string, sent, dot int) bool {
	w := dot
	for w > sent {
		r, size := utf8.DecodeLastRuneInString(text[sent:w])
		if !unicode.IsLetter(r) && r != '.' {
			break
		}
		w -= size
	}
	word := strings.ToLower(text[w:dot])
	if word == "" {
		return false
	}
	// A lone letter is an initial ("J. Smith"), except the words "I" and "a" that can end a sentence.
	return abbreviations[word] || (utf8.RuneCountInString(word) == 1 && word != "i" && word != "a")
}

func hasWordRune(s string) bool {
	for _, r := range s {
		if unicode.IsLetter(r) || unicode.IsDigit(r) || isEmoji(r) {
			return true
		}
	}
	return false
}

func isSpaceByte(b byte) bool {
	return b == ' ' || b == '\t' || b == '\r' || b == '\n' || b == '\f' || b == '\v'
}
