package email

import (
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

// headerRole maps the field names of forwarded header blocks, in the languages mail clients localize them to,
// onto the role they play.
var headerRole = map[string]string{
	"from": "from", "von": "from", "de": "from", "da": "from", "van": "from", "fra": "from", "från": "from",
	"od": "from", "lähettäjä": "from", "від": "from", "от": "from", "发件人": "from",
	"date": "date", "sent": "date", "datum": "date", "gesendet": "date", "envoyé": "date", "fecha": "date",
	"enviado": "date", "enviada": "date", "data": "date", "inviato": "date", "verzonden": "date", "sendt": "date",
	"skickat": "date", "lähetetty": "date", "wysłano": "date", "发送时间": "date",
	"subject": "subject", "betreff": "subject", "objet": "subject", "asunto": "subject", "oggetto": "subject",
	"onderwerp": "subject", "emne": "subject", "ämne": "subject", "assunto": "subject", "aihe": "subject",
	"temat": "subject", "主题": "subject",
	"to": "to", "an": "to", "à": "to", "a": "to", "para": "to", "aan": "to", "til": "to", "till": "to",
	"vastaanottaja": "to", "do": "to", "收件人": "to",
	"cc": "cc", "kopie": "cc", "cci": "cc", "bcc": "cc", "reply-to": "cc", "antwort an": "cc",
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
	roles   map[string]bool
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
		case forwardMarker.MatchString(text):
			marker = "forward"
		case genericMarker.MatchString(text):
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
	blk := headerBlock{roles: map[string]bool{}}
	lastRole := ""
	j := i
	for ; j >= 0 && j < len(lines) && j-i < maxBlockLines; j++ {
		ld, text := quoteLevel(lines[j])
		text = strings.TrimSpace(text)
		if text == "" {
			// Clients that render HTML put blank lines between the fields.
			if n := nextNonBlank(lines, j+1, d, 1); n > 0 && len(blk.roles) > 0 && isHeaderField(lines[n], d) {
				continue
			}
			break
		}
		if ld != d {
			break
		}
		role, value := fieldOf(text)
		if role == "" {
			if lastRole == "to" || lastRole == "cc" {
				if strings.Contains(text, "@") || strings.HasPrefix(lines[j], " ") || strings.HasPrefix(lines[j], "\t") {
					continue // a wrapped address list
				}
			}
			break
		}
		if blk.roles[role] && (role == "from" || role == "subject") {
			break // a second sender or subject belongs to the next block
		}
		if !blk.roles[role] {
			switch role {
			case "from":
				blk.from = parsePerson(value)
			case "subject":
				blk.subject = collapseSpace(value)
			}
		}
		blk.roles[role] = true
		lastRole = role
	}
	blk.end = j
	if !blk.roles["from"] {
		return blk, false
	}
	if marked {
		return blk, len(blk.roles) >= 2
	}
	return blk, blk.roles["date"] && (blk.roles["subject"] || blk.roles["to"])
}

func isHeaderField(line string, d int) bool {
	ld, text := quoteLevel(line)
	role, _ := fieldOf(strings.TrimSpace(text))
	return ld == d && role != ""
}

// fieldOf returns the role and value of a forwarded header line such as "Envoyé : lundi…" or "*From:* Jane".
// It runs on every line of a body, so it avoids regular expressions.
func fieldOf(text string) (role, value string) {
	i := strings.IndexAny(text, ":：")
	if i <= 0 || i > 40 {
		return "", ""
	}
	key := strings.ToLower(strings.Trim(text[:i], " *\t"))
	role = headerRole[key]
	if role == "" {
		return "", ""
	}
	_, size := utf8.DecodeRuneInString(text[i:])
	value = strings.TrimSpace(strings.TrimLeft(text[i+size:], "*"))
	return role, value
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
