package email

import (
	"regexp"
	"strings"
)

// Reply and forward prefixes as mail clients write them in common languages: Re, Fwd/FW, German AW/WG,
// French TR, Spanish RV, Scandinavian SV/VS/VB, Dutch Antw/Doorst, Italian R/I/Rif, Portuguese Res/Enc,
// Polish Odp/PD, Finnish VL/VS, Turkish YNT/İLT, Chinese and Japanese ones; optionally counted ("Re[2]:").
var (
	prefixRe  = regexp.MustCompile(`(?i)^\s*(?:re|fwd?|aw|wg|tr|rv|sv|vs|vb|antw|antwort|doorst|r|i|rif|res|enc|odp|pd|vl|ynt|İlt|回复|回覆|答复|转发|轉寄|転送|返信)\s*(?:\[\d+\]|\(\d+\))?\s*[:：]\s*`)
	forwardRe = regexp.MustCompile(`(?i)^(?:fwd?|wg|tr|rv|vs|vb|doorst|i|enc|pd|İlt|转发|轉寄|転送)\s*(?:\[\d+\]|\(\d+\))?\s*[:：]`)
)

// cleanSubject removes every leading reply or forward prefix, however many and in whatever case.
func cleanSubject(s string) string {
	s = collapseSpace(s)
	for {
		loc := prefixRe.FindStringIndex(s)
		if loc == nil || loc[1] == 0 {
			return strings.TrimSpace(s)
		}
		s = s[loc[1]:]
	}
}

// isForwardSubject reports whether any of the leading prefixes marks a forward ("Re: Fwd: x" counts: the
// reply is to a forward, whose header block is still in the body).
func isForwardSubject(s string) bool {
	s = collapseSpace(s)
	for {
		if forwardRe.MatchString(s) {
			return true
		}
		loc := prefixRe.FindStringIndex(s)
		if loc == nil || loc[1] == 0 {
			return false
		}
		s = s[loc[1]:]
	}
}
