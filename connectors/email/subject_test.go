package email

import (
	"regexp"
	"testing"
)

// The expressions subjectPrefix replaced, kept as its reference.
var (
	prefixRe  = regexp.MustCompile(`(?i)^\s*(?:re|fwd?|aw|wg|tr|rv|sv|vs|vb|antw|antwort|doorst|r|i|rif|res|enc|odp|pd|vl|ynt|İlt|回复|回覆|答复|转发|轉寄|転送|返信)\s*(?:\[\d+\]|\(\d+\))?\s*[:：]\s*`)
	forwardRe = regexp.MustCompile(`(?i)^\s*(?:fwd?|wg|tr|rv|vs|vb|doorst|i|enc|pd|İlt|转发|轉寄|転送)\s*(?:\[\d+\]|\(\d+\))?\s*[:：]`)
)

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
