package email

import (
	"math/bits"
	"strings"
	"unicode/utf8"
)

// role is what a field of a forwarded header block says; a block's roles are a set of bits.
type role uint8

const (
	roleFrom role = 1 << iota
	roleDate
	roleSubject
	roleTo
	roleCC
)

// maxBlockLines bounds a header block, which also keeps a scan over hostile input linear.
const maxBlockLines = 40

// level is one message of a forward chain: its sender, its subject and the text its sender wrote (up to the
// next forwarded message).
type level struct {
	from    person
	subject string
	text    string
}

// headerBlock is a run of "From: …", "Subject: …" lines that a client wrote above a forwarded or quoted message.
type headerBlock struct {
	from    person
	subject string
	roles   role
	end     int // index of the first line after the block
}

// span locates a forwarded message inside the lines: where its separator begins, where its body begins, the
// quote depth of that body, and whether the body is indented (Outlook indents a message it forwards below a
// reply introduction).
type span struct {
	cut, start, depth int
	indent            bool
}

// findForwards scans body for inline forwards. It returns the text above the first one and a level per
// forwarded message, outermost first. forwardCtx says whether the message around the body is itself a forward
// (by its subject). The scan is one pass: a header block that is not a forward is quoted reply history and
// ends it.
//
// A forwarded message is recognised by its structure, with the labels and phrases of the locale table: a
// separator line (a known phrase, or dashes around any text) over a header block; a header block alone that
// starts with its sender, Outlook's way; a header block folded onto one line, Yahoo's way; or, in a forward, a
// reply introduction naming the sender ("On …, Jane <jane@acme.com> wrote:"). The header block and the body
// may be quoted one level deeper than the separator (Apple Mail and Missive quote the forwarded message).
func findForwards(body string, forwardCtx bool) (string, []level, bool) {
	lines := unfoldHeaderLines(strings.Split(normalizeNewlines(body), "\n"))
	var hops []level
	var spans []span
	depth := 0 // quote depth of the current (innermost) forwarded body
	for i := 0; i < len(lines); i++ {
		d, text := quoteLevel(lines[i])
		text = strings.TrimSpace(text)
		if text == "" {
			continue
		}
		if d < depth {
			break // the quoted forward ended; what follows is the forwarder's again
		}
		sep := separatorOf(text)
		if sep == notSeparator && forwardCtx {
			if joined, last := introAt(lines, i, d); last >= 0 && isIntro(joined, true) {
				if from := introPerson(joined); from.email != "" {
					sp := bodySpan(lines, i, last+1, d)
					hops = append(hops, level{from: from})
					spans = append(spans, sp)
					forwardCtx = false // an introduction carries no subject to tell
					depth = sp.depth
					i = last
					continue
				}
			}
		}
		from, bd := i, d
		if sep != notSeparator {
			if from, bd = nextContent(lines, i+1, 2); from < 0 || bd < d || bd > d+1 {
				continue
			}
		}
		blk, ok := parseHeaderBlock(lines, from, bd, sep)
		if !ok {
			continue
		}
		if sep != sepForward && !forwardCtx {
			break // quoted reply history of the current message, not a forward
		}
		hops = append(hops, level{from: blk.from, subject: blk.subject})
		sp := bodySpan(lines, i, blk.end, bd)
		spans = append(spans, sp)
		forwardCtx = isForwardSubject(blk.subject)
		depth = sp.depth
		i = blk.end - 1
	}
	if len(hops) == 0 {
		return "", nil, false
	}
	lead := extract(lines, 0, span{cut: spans[0].cut})
	for k, sp := range spans {
		to := len(lines)
		if k+1 < len(spans) {
			to = spans[k+1].cut
		}
		hops[k].text = extract(lines, sp.start, span{cut: to, depth: sp.depth, indent: sp.indent})
	}
	return lead, hops, true
}

// bodySpan describes the body of a forwarded message that begins at lines[start], below a separator or
// introduction at lines[cut] of quote depth d: a body quoted one level deeper than its header (Missive,
// Outlook's introductions) or indented is read without that level or indentation.
func bodySpan(lines []string, cut, start, d int) span {
	sp := span{cut: cut, start: start, depth: d}
	n, nd := nextContent(lines, start, 3)
	switch {
	case n < 0:
	case nd == d+1:
		sp.depth = nd
	case nd == d:
		_, text := quoteLevel(lines[n])
		sp.indent = strings.HasPrefix(text, "  ") || strings.HasPrefix(text, "\t")
	}
	return sp
}

// extract returns lines[from:sp.cut] with sp.depth quote levels removed (and the indentation, for an indented
// body), ending early where a line is quoted less deeply (the quoted forward ended there).
func extract(lines []string, from int, sp span) string {
	to := sp.cut
	out := make([]string, 0, max(to-from, 0))
	for _, l := range lines[from:to] {
		d, text := quoteLevel(l)
		if strings.TrimSpace(text) == "" {
			out = append(out, "")
			continue
		}
		if d < sp.depth {
			break
		}
		if sp.indent {
			text = strings.TrimPrefix(text, "\t")
			for k := 0; k < 4 && strings.HasPrefix(text, " "); k++ {
				text = text[1:]
			}
		}
		out = append(out, strings.Repeat("> ", d-sp.depth)+text)
	}
	return strings.Join(out, "\n")
}

// parseHeaderBlock reads a header block at lines[i] (quote depth d) the way a client writes one: its fields in
// any order, a field's value going on over the lines below it (see continues). Behind a known separator a
// sender and one more field suffice; behind dashes around an unknown phrase a field must also hold an address;
// without a separator, the block must look like Outlook's: a sender (or its subject) first, then the date and a
// subject or recipient.
func parseHeaderBlock(lines []string, i, d int, sep separatorKind) (headerBlock, bool) {
	var (
		blk      headerBlock
		lastRole role
		from     string  // parsed once the block qualifies
		value    *string // the value that a continuation line extends: the sender's or the subject
		hasAddr  bool
		unknown  = -1 // the first of a run of fields with labels no entry knows, or -1
	)
	j := i
	for ; j >= 0 && j < len(lines) && j-i < maxBlockLines; j++ {
		ld, text := quoteLevel(lines[j])
		indented := strings.HasPrefix(lines[j], " ") || strings.HasPrefix(lines[j], "\t")
		text = strings.TrimSpace(text)
		if text == "" {
			// Clients that render HTML put blank lines between the fields.
			if n := nextNonBlank(lines, j+1, d, 1); n > 0 && blk.roles != 0 && isHeaderField(lines[n], d) {
				continue
			}
			break
		}
		if ld != d {
			break
		}
		r, v := fieldOf(text)
		if r == 0 {
			if lastRole != 0 && unknown < 0 && continues(lines, j, d, lastRole, from, text, indented) {
				if value != nil {
					*value = collapseSpace(*value + " " + text)
				}
				hasAddr = hasAddr || lastRole != roleSubject && strings.Contains(text, "@")
				continue
			}
			if blk.roles != 0 && j-i < maxBlockLines-1 && looksLikeField(text) {
				// A label no entry knows ("发送日期：…") between known ones: the block goes on if a known
				// field follows; if none does, the block ends before it.
				if unknown < 0 {
					unknown = j
				}
				continue
			}
			break
		}
		unknown = -1
		if j == i && sep == notSeparator && !startsBlock(lines, j, d, r) {
			break // a block without a separator starts with its sender (or its date or subject, then its sender)
		}
		if blk.roles&r != 0 && r&(roleFrom|roleSubject) != 0 {
			break // a second sender or subject belongs to the next block
		}
		value = nil
		if blk.roles&r == 0 {
			switch r {
			case roleFrom:
				from, value = v, &from
			case roleSubject:
				blk.subject, value = collapseSpace(v), &blk.subject
			}
		}
		hasAddr = hasAddr || r != roleSubject && strings.Contains(v, "@")
		blk.roles |= r
		lastRole = r
	}
	if unknown >= 0 {
		j = unknown
	}
	blk.end = j
	ok := false
	switch {
	case blk.roles&roleFrom == 0:
	case sep == sepUnknown:
		ok = hasAddr && bits.OnesCount8(uint8(blk.roles)) >= 2
	case sep != notSeparator:
		ok = bits.OnesCount8(uint8(blk.roles)) >= 2
	default:
		ok = blk.roles&roleDate != 0 && blk.roles&(roleSubject|roleTo) != 0
	}
	if ok {
		blk.from = parsePerson(from)
	}
	return blk, ok
}

// separatorOf tells whether t (a trimmed line) is a separator that clients put above a forwarded or quoted
// header block: a phrase of the locale table between dashes ("---------- Forwarded message ---------") or
// before a colon ("Begin forwarded message:"), dashes around a phrase no entry knows, or a long rule.
func separatorOf(t string) separatorKind {
	if len(t) < 2 {
		return notSeparator
	}
	if c := t[0]; (c == '-' || c == '_' || c == '=') && t[1] == c {
		n := 0
		for n < len(t) && t[n] == c {
			n++
		}
		if n == len(t) {
			if c == '_' && n >= 10 || c == '-' && n >= 20 {
				return sepOriginal // a rule: what follows decides
			}
			return notSeparator
		}
		inner := strings.TrimRight(t[n:], " -_=")
		if len(inner) > 120 {
			return notSeparator
		}
		if k := separatorPhrase[foldText(strings.Trim(inner, " :"))]; k != notSeparator {
			return k
		}
		if len(inner) == len(t)-n {
			return notSeparator // no dashes after the phrase: a line of text
		}
		return sepUnknown
	}
	if len(t) > 120 || !strings.HasSuffix(t, ":") && !strings.HasSuffix(t, "：") {
		return notSeparator
	}
	inner := strings.TrimRight(strings.TrimSuffix(strings.TrimSuffix(t, ":"), "："), " ")
	switch k := separatorPhrase[foldText(inner)]; k {
	case sepForward, sepOriginal:
		return k
	}
	return notSeparator
}

// looksLikeField reports whether t (a trimmed line) has the shape of a header field whose label no entry of
// the locale table knows: a label of at most three words and 30 bytes, without an address, before a colon
// and a value.
func looksLikeField(t string) bool {
	i := labelEnd(t, 30)
	if i <= 0 || strings.TrimSpace(t[i:]) == ":" || strings.TrimSpace(t[i:]) == "：" {
		return false
	}
	label := t[:i]
	return !strings.ContainsAny(label, "@<>") && strings.Count(strings.TrimSpace(label), " ") <= 2
}

// labelEnd returns the index of the first colon (ASCII or full-width) of text when it lies within max bytes,
// or -1.
func labelEnd(text string, max int) int {
	w := text[:min(len(text), max+1+len("："))]
	i := strings.IndexByte(w, ':')
	if k := strings.Index(w, "："); k >= 0 && (i < 0 || k < i) {
		i = k
	}
	if i > max {
		return -1
	}
	return i
}

// startsWith reports whether lines[j] is a header field of role r at quote depth d.
func startsWith(lines []string, j, d int, r role) bool {
	if j >= len(lines) {
		return false
	}
	ld, text := quoteLevel(lines[j])
	got, _ := fieldOf(strings.TrimSpace(text))
	return ld == d && got == r
}

func isHeaderField(line string, d int) bool {
	ld, text := quoteLevel(line)
	r, _ := fieldOf(strings.TrimSpace(text))
	return ld == d && r != 0
}

// fieldOf returns the role and value of a forwarded header line such as "Envoyé : lundi…" or "*From:* Jane".
// It runs on every line of a body, so it avoids regular expressions and looks no further than a field name
// can reach.
func fieldOf(text string) (r role, value string) {
	i := labelEnd(text, 40)
	if i <= 0 {
		return 0, ""
	}
	r = roleOf(strings.Trim(text[:i], " *\t"))
	if r == 0 {
		return 0, ""
	}
	_, size := utf8.DecodeRuneInString(text[i:])
	return r, strings.TrimSpace(strings.TrimLeft(text[i+size:], "*"))
}

// roleOf looks a field name up in headerRole, in lower case; ASCII names are lowered without allocating.
func roleOf(name string) role {
	var buf [40]byte
	if len(name) > len(buf) {
		return 0
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if c >= utf8.RuneSelf {
			return headerRole[strings.ToLower(name)]
		}
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		buf[i] = c
	}
	return headerRole[string(buf[:len(name)])]
}

// nextNonBlank returns the index of the first non-blank line within max blank lines of i when it is at quote
// depth d, or -1. Blank lines count at any depth: clients leave them unquoted inside quoted blocks.
func nextNonBlank(lines []string, i, d, max int) int {
	for skipped := 0; i < len(lines) && skipped <= max; i++ {
		ld, text := quoteLevel(lines[i])
		if strings.TrimSpace(text) != "" {
			if ld != d {
				return -1
			}
			return i
		}
		skipped++
	}
	return -1
}

// quoteLevel counts the leading ">" of a line (with or without spaces between) and returns the rest.
func quoteLevel(line string) (int, string) {
	d := 0
	rest := line
	for {
		t := strings.TrimLeft(rest, " ")
		if !strings.HasPrefix(t, ">") {
			break
		}
		d++
		rest = t[1:]
	}
	if d == 0 {
		return 0, line
	}
	return d, strings.TrimPrefix(rest, " ")
}

// nextContent returns the index and quote depth of the first non-blank line within max blank lines of i, or
// -1. Blank lines count at any depth: clients leave them unquoted inside quoted blocks.
func nextContent(lines []string, i, max int) (int, int) {
	for skipped := 0; i < len(lines) && skipped <= max; i++ {
		d, text := quoteLevel(lines[i])
		if strings.TrimSpace(text) != "" {
			return i, d
		}
		skipped++
	}
	return -1, 0
}

// normalizeNewlines turns every line ending into "\n", non-breaking spaces (French typography puts one before
// a colon) into spaces, and drops byte-order marks and zero-width spaces, which some clients leave in the
// text. Each replacement costs one scan when there is nothing to replace.
func normalizeNewlines(s string) string {
	for _, r := range [...][2]string{{"\r\n", "\n"}, {"\r", "\n"}, {"\u00a0", " "}, {"\u202f", " "}, {"\u2007", " "},
		{"\ufeff", ""}, {"\u200b", ""}} {
		s = strings.ReplaceAll(s, r[0], r[1])
	}
	return s
}
