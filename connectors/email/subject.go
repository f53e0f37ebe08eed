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
	if j < len(s) && s[j] == '.' && tok != "" && len(tok) <= 21 && tokenKind(s[i:j+1]) != prefixNone {
		j++ // a token written with its abbreviation's full stop ("Redir.:")
		tok = s[i:j]
	}
	if tok == "" || len(tok) > 22 {
		return 0, false
	}
	switch tokenKind(tok) {
	case prefixForward:
		forward = true
	case prefixNone:
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

const (
	prefixNone = iota
	prefixReply
	prefixForward
)

// asciiTokens holds the ASCII tokens of forwardTokens and replyTokens in lower case. No other token folds to
// ASCII text, so an ASCII token is looked up there; others are compared with each token by simple folding.
var asciiTokens = func() map[string]int {
	m := map[string]int{}
	for kind, list := range map[int][]string{prefixReply: replyTokens, prefixForward: forwardTokens} {
		for _, t := range list {
			if k, ok := lowerASCII(t); ok {
				m[k] = kind
			}
		}
	}
	return m
}()

func tokenKind(tok string) int {
	var buf [22]byte
	if len(tok) <= len(buf) {
		ascii := true
		for i := 0; i < len(tok); i++ {
			c := tok[i]
			if c >= utf8.RuneSelf {
				ascii = false
				break
			}
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			buf[i] = c
		}
		if ascii {
			return asciiTokens[string(buf[:len(tok)])]
		}
	}
	switch {
	case hasFold(forwardTokens, tok):
		return prefixForward
	case hasFold(replyTokens, tok):
		return prefixReply
	}
	return prefixNone
}

func lowerASCII(s string) (string, bool) {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return "", false
		}
	}
	return strings.ToLower(s), true
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
