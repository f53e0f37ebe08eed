package email

import (
	"math/bits"
	"strings"
	"unicode"
	"unicode/utf8"
)

// unfoldHeaderLines returns lines with every header block that a client folded onto one line (Yahoo:
// "----- Forwarded Message ----- From: Jane <jane@acme.com>To: …Sent: …Subject: …") written out one field
// a line. lines itself is returned when there is none.
func unfoldHeaderLines(lines []string) []string {
	var out []string
	for i, l := range lines {
		if strings.Count(l, ":") < 3 {
			if out != nil {
				out = append(out, l)
			}
			continue
		}
		fields := unfoldHeaderLine(l)
		if fields == nil {
			if out != nil {
				out = append(out, l)
			}
			continue
		}
		if out == nil {
			out = append(make([]string, 0, len(lines)+8), lines[:i]...)
		}
		out = append(out, fields...)
	}
	if out == nil {
		return lines
	}
	return out
}

// unfoldHeaderLine splits one line holding a folded header block (optionally behind a dashed separator) into
// its separator and fields, each with the line's quote marks; nil when it holds none. A field starts where a
// label of the table, capitalised as clients write them, ends in a colon: it may follow the previous value
// without a space ("…AMSubject:"). The fields must start with the sender and name a date or a subject; the
// subject, which clients write last, ends the block.
func unfoldHeaderLine(line string) []string {
	d, text := quoteLevel(line)
	t := strings.TrimSpace(text)
	prefix := strings.Repeat("> ", d)
	var out []string
	if strings.HasPrefix(t, "--") {
		n := strings.IndexFunc(t, func(r rune) bool { return r != '-' })
		if n < 0 {
			return nil
		}
		k := strings.Index(t[n:], "--")
		if k < 0 {
			return nil
		}
		e := n + k
		for e < len(t) && t[e] == '-' {
			e++
		}
		out = append(out, prefix+t[:e])
		t = strings.TrimSpace(t[e:])
	}
	r, _ := fieldOf(t)
	if r != roleFrom {
		return nil
	}
	seen := roleFrom
	start := 0
	for p := strings.IndexByte(t, ':') + 1; p < len(t); {
		c := strings.IndexByte(t[p:], ':')
		if c < 0 {
			break
		}
		colon := p + c
		p = colon + 1
		k, r := labelBefore(t, start, colon)
		if r == 0 || seen&r != 0 && r != roleCC {
			continue
		}
		out = append(out, prefix+strings.TrimSpace(t[start:k]))
		start, seen = k, seen|r
		if r == roleSubject {
			break
		}
	}
	out = append(out, prefix+strings.TrimSpace(t[start:]))
	if seen&(roleDate|roleSubject) == 0 || bits.OnesCount8(uint8(seen)) < 3 {
		return nil
	}
	return out
}

// labelBefore finds a label of the table that ends at t[colon] (a space before the colon allowed) and starts
// after t[min]; it returns where the label starts and its role. The longest label wins. A label starts with
// a capital letter (or a letter of a script without case) after a non-letter, or after a letter of another
// case ("…comTo:").
func labelBefore(t string, min, colon int) (int, role) {
	end := colon
	if end > min && t[end-1] == ' ' {
		end--
	}
	best, bestRole := -1, role(0)
	for k := end - 1; k > min && end-k <= 30; k-- {
		if !utf8.RuneStart(t[k]) {
			continue
		}
		first, _ := utf8.DecodeRuneInString(t[k:])
		if !unicode.IsLetter(first) || unicode.IsLower(first) {
			continue
		}
		prev, _ := utf8.DecodeLastRuneInString(t[:k])
		if unicode.IsLetter(prev) && unicode.IsUpper(prev) && !hasLower(t[k:end]) {
			continue // inside a word written in capitals; a capitalised label may follow one ("…MEZBetreff:")
		}
		if r := roleOf(t[k:end]); r != 0 {
			best, bestRole = k, r
		}
	}
	return best, bestRole
}

func hasLower(s string) bool {
	return strings.IndexFunc(s, unicode.IsLower) >= 0
}
