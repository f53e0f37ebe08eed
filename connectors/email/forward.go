package email

import (
	"math/bits"
	"regexp"
	"strings"
	"unicode/utf8"
)

// Separator lines that mail clients put above a forwarded or quoted message. Forward markers say "forward" in
// some language; generic markers (Outlook's "Original Message", its underscore rule) are used for replies and
// forwards alike, so they count as a forward only when the subject says so.
var (
	forwardMarker = regexp.MustCompile(`(?i)^(?:-{2,}\s*(?:forwarded message|weitergeleitete nachricht|message transféré|mensaje reenviado|messaggio inoltrato|mensagem encaminhada|doorgestuurd bericht|videresendt melding|vidarebefordrat meddelande|välitetty viesti|przekazana wiadomość|wiadomość przekazana)\s*-*|begin forwarded message:|anfang der weitergeleiteten nachricht:|début du message (?:réexpédié|transféré) ?:|inicio del mensaje reenviado:|inizio messaggio inoltrato:|início da mensagem reencaminhada:|begin doorgestuurd bericht:)$`)
	genericMarker = regexp.MustCompile(`(?i)^(?:-{2,}\s*(?:original message|ursprüngliche nachricht|message d'origine|mensaje original|messaggio originale|mensagem original|oorspronkelijk bericht|originalmeddelande|opprinnelig melding|alkuperäinen viesti|wiadomość oryginalna)\s*-*|_{10,}|-{20,})$`)
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

// isForwardMarker and isGenericMarker run on every line; a marker begins with a rule ("--", "__") or ends
// with a colon, which most lines rule out without the regular expression.
func isForwardMarker(t string) bool {
	return (strings.HasPrefix(t, "--") || strings.HasSuffix(t, ":")) && forwardMarker.MatchString(t)
}

func isGenericMarker(t string) bool {
	return (strings.HasPrefix(t, "--") || strings.HasPrefix(t, "__")) && genericMarker.MatchString(t)
}

// headerRole maps the field names of forwarded header blocks, in the languages mail clients localize them to,
// onto the role they play.
var headerRole = map[string]role{
	"from": roleFrom, "von": roleFrom, "de": roleFrom, "da": roleFrom, "van": roleFrom, "fra": roleFrom, "från": roleFrom,
	"od": roleFrom, "lähettäjä": roleFrom, "від": roleFrom, "от": roleFrom, "发件人": roleFrom,
	"date": roleDate, "sent": roleDate, "datum": roleDate, "gesendet": roleDate, "envoyé": roleDate, "fecha": roleDate,
	"enviado": roleDate, "enviada": roleDate, "data": roleDate, "inviato": roleDate, "verzonden": roleDate, "sendt": roleDate,
	"skickat": roleDate, "lähetetty": roleDate, "wysłano": roleDate, "发送时间": roleDate,
	"subject": roleSubject, "betreff": roleSubject, "objet": roleSubject, "asunto": roleSubject, "oggetto": roleSubject,
	"onderwerp": roleSubject, "emne": roleSubject, "ämne": roleSubject, "assunto": roleSubject, "aihe": roleSubject,
	"temat": roleSubject, "主题": roleSubject,
	"to": roleTo, "an": roleTo, "à": roleTo, "a": roleTo, "para": roleTo, "aan": roleTo, "til": roleTo, "till": roleTo,
	"vastaanottaja": roleTo, "do": roleTo, "收件人": roleTo,
	"cc": roleCC, "kopie": roleCC, "cci": roleCC, "bcc": roleCC, "reply-to": roleCC, "antwort an": roleCC,
}

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

// span locates a forwarded message inside the lines: where its marker begins, where its body begins, and the
// quote depth of that body.
type span struct{ cut, start, depth int }

// findForwards scans body for inline forwards. It returns the text above the first one and a level per
// forwarded message, outermost first. forwardCtx says whether the message around the body is itself a forward
// (by its subject). The scan is one pass: a header block that is not a forward is quoted reply history and
// ends it.
func findForwards(body string, forwardCtx bool) (string, []level, bool) {
	lines := strings.Split(normalizeNewlines(body), "\n")
	var hops []level
	var spans []span
	depth := 0 // quote depth of the current (innermost) forwarded body
	for i := 0; i < len(lines); i++ {
		d, text := quoteLevel(lines[i])
		text = strings.TrimSpace(text)
		if d < depth && text != "" {
			break // the quoted forward ended; what follows is the forwarder's again
		}
		marker := ""
		switch {
		case isForwardMarker(text):
			marker = "forward"
		case isGenericMarker(text):
			marker = "generic"
		}
		from := i
		if marker != "" {
			from = nextNonBlank(lines, i+1, d, 2)
		}
		blk, ok := parseHeaderBlock(lines, from, d, marker != "")
		if !ok {
			continue
		}
		if marker != "forward" && !forwardCtx {
			break // quoted reply history of the current message, not a forward
		}
		hops = append(hops, level{from: blk.from, subject: blk.subject})
		spans = append(spans, span{cut: i, start: blk.end, depth: d})
		forwardCtx = isForwardSubject(blk.subject)
		depth = d
		i = blk.end - 1
	}
	if len(hops) == 0 {
		return "", nil, false
	}
	lead := extract(lines, 0, spans[0].cut, 0)
	for k, sp := range spans {
		to := len(lines)
		if k+1 < len(spans) {
			to = spans[k+1].cut
		}
		hops[k].text = extract(lines, sp.start, to, sp.depth)
	}
	return lead, hops, true
}

// extract returns lines[from:to] with depth quote levels removed, ending early where a line is quoted less
// deeply (the quoted forward ended there).
func extract(lines []string, from, to, depth int) string {
	out := make([]string, 0, to-from)
	for _, l := range lines[from:to] {
		d, text := quoteLevel(l)
		if strings.TrimSpace(text) == "" {
			out = append(out, "")
			continue
		}
		if d < depth {
			break
		}
		out = append(out, strings.Repeat("> ", d-depth)+text)
	}
	return strings.Join(out, "\n")
}

// parseHeaderBlock reads a header block at lines[i] (quote depth d). Behind a marker a sender and one more
// field suffice; without one, the block must look like Outlook's full From/Sent/Subject block.
func parseHeaderBlock(lines []string, i, d int, marked bool) (headerBlock, bool) {
	var (
		blk      headerBlock
		lastRole role
		from     string // parsed once the block qualifies
	)
	j := i
	for ; j >= 0 && j < len(lines) && j-i < maxBlockLines; j++ {
		ld, text := quoteLevel(lines[j])
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
		r, value := fieldOf(text)
		if r == 0 {
			if lastRole == roleTo || lastRole == roleCC {
				if strings.Contains(text, "@") || strings.HasPrefix(lines[j], " ") || strings.HasPrefix(lines[j], "\t") {
					continue // a wrapped address list
				}
			}
			break
		}
		if blk.roles&r != 0 && r&(roleFrom|roleSubject) != 0 {
			break // a second sender or subject belongs to the next block
		}
		if blk.roles&r == 0 {
			switch r {
			case roleFrom:
				from = value
			case roleSubject:
				blk.subject = collapseSpace(value)
			}
		}
		blk.roles |= r
		lastRole = r
	}
	blk.end = j
	ok := false
	switch {
	case blk.roles&roleFrom == 0:
	case marked:
		ok = bits.OnesCount8(uint8(blk.roles)) >= 2
	default:
		ok = blk.roles&roleDate != 0 && blk.roles&(roleSubject|roleTo) != 0
	}
	if ok {
		blk.from = parsePerson(from)
	}
	return blk, ok
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
	w := text[:min(len(text), 41+len("："))]
	i := strings.IndexByte(w, ':')
	if k := strings.Index(w, "："); k >= 0 && (i < 0 || k < i) {
		i = k
	}
	if i <= 0 || i > 40 {
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

func normalizeNewlines(s string) string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	s = strings.ReplaceAll(s, "\r", "\n")
	return strings.ReplaceAll(s, "\u00a0", " ")
}
