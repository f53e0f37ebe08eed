package email

import (
	"regexp"
	"strings"
	"testing"
)

// The expressions subjectPrefix stands for, built from the same token lists, kept as its reference.
var prefixRe, forwardRe = func() (*regexp.Regexp, *regexp.Regexp) {
	alt := func(tokens []string) string {
		q := make([]string, len(tokens))
		for i, t := range tokens {
			q[i] = regexp.QuoteMeta(t)
		}
		return strings.Join(q, "|")
	}
	all := append(append([]string{}, replyTokens...), forwardTokens...)
	return regexp.MustCompile(`(?i)^\s*(?:` + alt(all) + `)\s*(?:\[\d+\]|\(\d+\))?\s*[:：]\s*`),
		regexp.MustCompile(`(?i)^\s*(?:` + alt(forwardTokens) + `)\s*(?:\[\d+\]|\(\d+\))?\s*[:：]`)
}()

func checkSubjectPrefix(t *testing.T, s string) {
	t.Helper()
	n, forward := subjectPrefix(s)
	want := 0
	if loc := prefixRe.FindStringIndex(s); loc != nil {
		want = loc[1]
	}
	if wantFwd := want > 0 && forwardRe.MatchString(s); n != want || forward != wantFwd {
		t.Fatalf("subjectPrefix(%q) = %d, %v; the expressions give %d, %v", s, n, forward, want, wantFwd)
	}
}

func TestSubjectPrefix(t *testing.T) {
	for _, s := range []string{
		"", "Re: x", "RE:x", "re :  x", " \tFwd: x", "FW: x", "Fwdx: y", "Re[2]: x", "Re (3) : x", "Re[]: x",
		"Re[2: x", "Re(2]: x", "AW: WG: x", "Antwort: x", "ANTW: x", "Antworten: x", "r: x", "I: x", "rif: x",
		"Res: x", "reſ: x", "İlt: x", "ilt: x", "İLT: x", "回复：x", "转发: x", "転送 ： x", "返信x: y", "re2: x",
		"Doorst: x", "VS:x", "TR : x", "Re:", "Re", ":", "Re:\r\n x", "Ynt: x", "odp:x", "Vl: x", "Sv: x",
		"Redir.: x", "Redir: x", "Redir. x", "Videresend: x", "ΠΡΘ: x", "Пересл: x", "전달: x", "轉寄：x", "Re.: x",
	} {
		checkSubjectPrefix(t, s)
	}
}

// FuzzSubjectPrefix: on any subject, subjectPrefix reads what the expressions it replaced match.
func FuzzSubjectPrefix(f *testing.F) {
	for _, s := range []string{"Re: x", "Fwd[2] : x", "AW: Antwort: x", "转发：x", "İlt: x", "reſ: x", "Re(12)：x"} {
		f.Add(s)
	}
	f.Fuzz(checkSubjectPrefix)
}
