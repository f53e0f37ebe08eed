package email

import (
	"regexp"
	"strings"
	"unicode/utf8"
)

var (
	// "On Mon, 3 Nov 2026 at 10:12, Jane <jane@acme.com> wrote:" and its translations; clients wrap it over up
	// to three lines. A date (a digit) is required too, so that "On the page I wrote:" stays.
	attributionStart = regexp.MustCompile(`(?i)^(?:on|am|le|el|il|op|den|em|w dniu|dne|\d{4})`)
	attributionRe    = regexp.MustCompile(`(?i)^(?:(?:on|am|le|el|il|op|den|em|w dniu|dne)\s|\d{4}).*(?:wrote|schrieb|a écrit|escribió|ha scritto|schreef|skrev|escreveu|napisał|pisze|napsal|kirjoitti|írta|yazdı).*:$`)
	// Sign-offs that phones and webmail append below the text.
	signOffRe = regexp.MustCompile(`(?i)^(?:sent from my |sent from (?:outlook|mail|yahoo mail|proton ?mail|aol)|sent with (?:proton ?mail|spark|blackberry)|sent via |get outlook for |von meinem .{1,40} gesendet|gesendet von meinem |gesendet mit |envoyé de mon |envoyé depuis |enviado desde mi |enviado do meu |inviato da(?:l mio)? |verzonden (?:vanaf|met) |skickat från |sendt fra min |wysłane z )`)
	// Placeholders that text parts carry for inline images (Gmail "[image: x]", Outlook "[cid:…]").
	inlineImageRe = regexp.MustCompile(`(?i)\[(?:image|cid|grafik|imagen|bild|immagine|afbeelding|inline image)\s*[: ]?[^\]\n]{0,200}\]`)
	imageLineRe   = regexp.MustCompile(`(?i)^<[^<>\s]+\.(?:png|jpe?g|gif|heic|bmp|webp|tiff?)>$`)
	ruleLineRe    = regexp.MustCompile(`^(?:_{10,}|-{20,})$`)
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
		case t == "--" || len(t) < 80 && signOffRe.MatchString(t):
			break scan
		case isHistoryStart(lines, i, t):
			break scan
		case isForwardMarker(t) || isImageLine(t):
			continue // a forward marker that no header block followed carries no text of its own
		}
		out = append(out, line)
	}
	return joinParagraphs(out)
}

// maxAttribution bounds the length of an attribution line; longer lines are text.
const maxAttribution = 400

// isHistoryStart reports whether lines[i] (trimmed: t) begins quoted history of a reply.
func isHistoryStart(lines []string, i int, t string) bool {
	if len(t) < maxAttribution && mayStartAttribution(t) && attributionStart.MatchString(t) {
		joined := t
		for k := i; k < len(lines) && k < i+3 && len(joined) < maxAttribution; k++ {
			if k > i {
				joined += " " + strings.TrimSpace(lines[k])
			}
			if strings.HasSuffix(joined, ":") && strings.ContainsAny(joined, "0123456789") && attributionRe.MatchString(joined) {
				return true
			}
		}
	}
	if isGenericMarker(t) {
		if !ruleLineRe.MatchString(t) {
			return true // "-----Original Message-----" and its translations
		}
		// A bare rule is only a separator when a header block follows it.
		n := nextNonBlank(lines, i+1, 0, 2)
		_, ok := parseHeaderBlock(lines, n, 0, true)
		return ok
	}
	if r, _ := fieldOf(t); r == roleFrom {
		_, ok := parseHeaderBlock(lines, i, 0, false)
		return ok
	}
	return false
}

// mayStartAttribution rules out, by its first byte, a line that attributionStart cannot match.
func mayStartAttribution(t string) bool {
	if t == "" {
		return false
	}
	c := t[0] | 0x20 // ASCII lower case; digits keep their value
	return t[0] >= utf8.RuneSelf || strings.IndexByte("oaleidw0123456789", c) >= 0
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
