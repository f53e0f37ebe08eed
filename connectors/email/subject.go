package email

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// subjectPrefix reads one reply or forward prefix at the start of s: optional white space, a token of the
// locale table (forwardTokens or replyTokens, matched case-insensitively by simple case folding), an
// optional count ("[2]" or "(2)"), a colon (ASCII or full-width) and the white space after it. It returns
// the prefix's length (0 when s starts with none) and whether the token marks a forward. It is a hand-written
// form of a regular expression that cost a tenth of the parser's time; FuzzSubjectPrefix holds it to that
// expression.
func subjectPrefix(s string) (n int, forward bool) {
	i := skipSpace(s, 0)
	j := i
	for j < len(s) {
		r, size := utf8.DecodeRuneInString(s[j:])
		if !unicode.IsLetter(r) {
			break
		}
		j += size
	}
	// Every token is followed by space, a count or the colon, none of them a letter: it is a whole run (with
	// its full stop, for an abbreviation). No token is longer than 22 bytes.
	tok := s[i:j]
	if j < len(s) && s[j] == '.' && tok != "" && len(tok) <= 21 && (hasFold(forwardTokens, s[i:j+1]) || hasFold(replyTokens, s[i:j+1])) {
		j++ // a token written with its abbreviation's full stop ("Redir.:")
		tok = s[i:j]
	}
	switch {
	case tok == "" || len(tok) > 22:
		return 0, false
	case hasFold(forwardTokens, tok):
		forward = true
	case !hasFold(replyTokens, tok):
		return 0, false
	}
	k := skipSpace(s, j)
	if k < len(s) && (s[k] == '[' || s[k] == '(') {
		closing := byte(']')
		if s[k] == '(' {
			closing = ')'
		}
		m := k + 1
		for m < len(s) && s[m] >= '0' && s[m] <= '9' {
			m++
		}
		if m > k+1 && m < len(s) && s[m] == closing {
			k = m + 1
		}
	}
	k = skipSpace(s, k)
	switch {
	case strings.HasPrefix(s[k:], ":"):
		k++
	case strings.HasPrefix(s[k:], "："):
		k += len("：")
	default:
		return 0, false
	}
	return skipSpace(s, k), forward
}

// skipSpace returns the index of the first byte at or after i that is not ASCII white space as regular
// expressions' \s has it.
func skipSpace(s string, i int) int {
	for i < len(s) {
		switch s[i] {
		case ' ', '\t', '\n', '\f', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

func hasFold(tokens []string, s string) bool {
	for _, t := range tokens {
		if strings.EqualFold(t, s) {
			return true
		}
	}
	return false
}

// cleanSubject removes every leading reply or forward prefix, however many and in whatever case.
func cleanSubject(s string) string {
	s = collapseSpace(s)
	for {
		n, _ := subjectPrefix(s)
		if n == 0 {
			return strings.TrimSpace(s)
		}
		s = s[n:]
	}
}

// isForwardSubject reports whether any of the leading prefixes marks a forward ("Re: Fwd: x" counts: the
// reply is to a forward, whose header block is still in the body).
func isForwardSubject(s string) bool {
	s = collapseSpace(s)
	for {
		n, forward := subjectPrefix(s)
		if forward {
			return true
		}
		if n == 0 {
			return false
		}
		s = s[n:]
	}
}
