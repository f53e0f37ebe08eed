package email

import (
	"regexp"
	"strings"
	"unicode/utf8"
)

var (
	// Placeholders that text parts carry for inline images (Gmail "[image: x]", Outlook "[cid:…]").
	inlineImageRe = regexp.MustCompile(`(?i)\[(?:image|cid|grafik|imagen|bild|immagine|afbeelding|inline image)\s*[: ]?[^\]\n]{0,200}\]`)
	imageLineRe   = regexp.MustCompile(`(?i)^<[^<>\s]+\.(?:png|jpe?g|gif|heic|bmp|webp|tiff?)>$`)
)

// cleanBody reduces a message body to what its author wrote: quoted lines, the quoted history below an
// attribution or an Outlook header block, the signature and phone sign-offs, and inline-image placeholders
// are removed; blank lines are collapsed.
func cleanBody(s string) string {
	s = inlineImageRe.ReplaceAllString(normalizeNewlines(s), "")
	lines := strings.Split(s, "\n")
	out := make([]string, 0, len(lines))
scan:
	for i, line := range lines {
		line = strings.TrimRight(line, " \t")
		if d, _ := quoteLevel(line); d > 0 {
			continue
		}
		t := strings.TrimSpace(line)
		switch {
		case t == "--" || isSignOff(t):
			break scan
		case isHistoryStart(lines, i, t):
			break scan
		case separatorOf(t) == sepForward || isImageLine(t):
			continue // a forward marker that no header block followed carries no text of its own
		}
		out = append(out, line)
	}
	return joinParagraphs(out)
}

// maxAttribution bounds the length of an attribution line; longer lines are text.
const maxAttribution = 400

// isHistoryStart reports whether lines[i] (trimmed: t) begins quoted history of a reply: a reply introduction
// in a language of the locale table, a separator of quoted history, or an Outlook header block.
func isHistoryStart(lines []string, i int, t string) bool {
	if t == "" {
		return false
	}
	if joined, last := introAt(lines, i, 0); last >= 0 && isIntro(joined, false) {
		return true
	}
	switch separatorOf(t) {
	case sepOriginal:
		if strings.Trim(t, "-_") != "" {
			return true // "-----Original Message-----" and its translations
		}
		// A bare rule is only a separator when a header block follows it.
		n := nextNonBlank(lines, i+1, 0, 2)
		_, ok := parseHeaderBlock(lines, n, 0, sepOriginal)
		return ok
	case sepUnknown:
		n := nextNonBlank(lines, i+1, 0, 2)
		_, ok := parseHeaderBlock(lines, n, 0, sepUnknown)
		return ok
	}
	if r, _ := fieldOf(t); r == roleFrom {
		_, ok := parseHeaderBlock(lines, i, 0, notSeparator)
		return ok
	}
	return false
}

// signOffFirst holds the first bytes (ASCII, lower case) that a sign-off of the table can start with.
var signOffFirst = func() (set [256]bool) {
	for _, so := range signOffs {
		if so[0] != "" {
			set[so[0][0]] = true
		}
	}
	return set
}()

// maxSignOff bounds the length of a sign-off line; longer lines are text.
const maxSignOff = 80

// isSignOff reports whether t is a line that phones and webmail append below the text, in a language of the
// locale table ("Sent from my iPhone", "Von meinem iPhone gesendet", "iPhoneから送信").
func isSignOff(t string) bool {
	if len(t) >= maxSignOff || t == "" {
		return false
	}
	if c := t[0]; c < utf8.RuneSelf && !signOffFirst[c|0x20] {
		for _, so := range signOffs {
			if so[0] == "" && strings.HasSuffix(t, so[1]) {
				return true // a sign-off written in a script without case ("iPhoneから送信" starts with "i")
			}
		}
		return false
	}
	lower := strings.ToLower(t)
	for _, so := range signOffs {
		if strings.HasPrefix(lower, so[0]) && strings.HasSuffix(lower, so[1]) && len(lower) >= len(so[0])+len(so[1]) {
			return true
		}
	}
	return false
}

func isImageLine(t string) bool {
	return strings.HasPrefix(t, "<") && strings.HasSuffix(t, ">") && imageLineRe.MatchString(t)
}

// joinParagraphs trims the lines at both ends and keeps at most one blank line between paragraphs.
func joinParagraphs(lines []string) string {
	var b strings.Builder
	blank := false
	for _, l := range lines {
		if strings.TrimSpace(l) == "" {
			blank = b.Len() > 0
			continue
		}
		if blank {
			b.WriteString("\n\n")
		} else if b.Len() > 0 {
			b.WriteByte('\n')
		}
		blank = false
		b.WriteString(l)
	}
	return b.String()
}
