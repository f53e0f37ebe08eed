package email

import "strings"

// maxContinuation bounds the lines one field's value may go on over.
const maxContinuation = 3

// continues reports whether text, the line lines[j] that is not a field, goes on with the value of the field
// above it (of role last). Clients wrap a long subject or address list at a fixed width, with or without
// indenting the rest: a line followed by another field of the block within a few lines goes on, since text
// below a block is never followed by one; a wrapped address list, or a sender whose address is still to
// come, goes on with an address or an indented line. An indented line after the last field is not enough:
// Yahoo indents the greeting right below its block.
func continues(lines []string, j, d int, last role, from, text string, indented bool) bool {
	if (last&(roleTo|roleCC) != 0 || last == roleFrom && !strings.Contains(from, "@")) &&
		(strings.Contains(text, "@") || indented) {
		return true
	}
	if looksLikeField(text) {
		return false // a field whose label no entry knows ("重要性: 高"), passed over by the caller
	}
	for k := j + 1; k < len(lines) && k <= j+maxContinuation; k++ {
		ld, t := quoteLevel(lines[k])
		t = strings.TrimSpace(t)
		if t == "" || ld != d {
			return false
		}
		if r, _ := fieldOf(t); r != 0 {
			return true
		}
	}
	return false
}

// startsBlock reports whether a field of role r at lines[j] can open a block that has no separator: Outlook's
// starts with the sender; GMX's with the date, then the sender; some clients' with the subject, then the
// sender or the date (a wrapped subject in between).
func startsBlock(lines []string, j, d int, r role) bool {
	switch r {
	case roleFrom:
		return true
	case roleDate:
		return startsWith(lines, j+1, d, roleFrom)
	case roleSubject:
		for k := j + 1; k < len(lines) && k <= j+1+maxContinuation; k++ {
			if startsWith(lines, k, d, roleFrom) || startsWith(lines, k, d, roleDate) {
				return true
			}
		}
	}
	return false
}
