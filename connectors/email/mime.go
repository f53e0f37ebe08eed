package email

import (
	"bytes"
	"fmt"
	"io"
	"regexp"
	"strings"
	"sync"
	"unicode/utf8"

	_ "github.com/emersion/go-message/charset" // ISO-8859-x and Windows-125x parts fail without it
	"github.com/emersion/go-message/mail"
	"golang.org/x/text/encoding/charmap"
)

// Bounds that keep one hostile message from costing unbounded time or memory.
const (
	maxDepth     = 8       // nested message/rfc822 levels
	maxParts     = 500     // MIME parts visited per message
	maxTextBytes = 2 << 20 // bytes read from one text part

	maxSalvageBytes = 256 << 10 // raw multipart body kept in case no part can be read
)

type person struct{ name, email string }

// part is one message (the top one or an attached message/rfc822) reduced to what the parser needs.
type part struct {
	header    mail.Header
	mediaType string
	from      person
	fromRaw   string
	dateRaw   string
	subject   string
	messageID string
	text      string // body as plain text (HTML converted, format=flowed joined), not yet cleaned
	inner     *part  // the first attached message, a forward as attachment
}

// collector gathers the body parts of one message while its MIME tree is walked.
type collector struct {
	plain, html []string
	hasText     bool // a plain part is not blank: HTML parts are not needed
	inner       *part
	parts       int
	depth       int
}

func readPart(raw []byte, depth int) (*part, error) {
	e, done, err := readTopEntity(raw)
	if e == nil {
		return nil, fmt.Errorf("email: read header: %w", err)
	}
	defer done()
	return messagePart(e, depth), nil
}

func readMessage(r io.Reader, depth int) (*part, error) {
	e, done, err := readEntity(r)
	if e == nil {
		return nil, fmt.Errorf("email: read header: %w", err)
	}
	defer done()
	return messagePart(e, depth), nil
}

// messagePart reduces a message entity to a part, reading its body.
func messagePart(e *entity, depth int) *part {
	h := mail.Header{Header: e.header}
	p := &part{header: h, fromRaw: h.Get("From"), dateRaw: h.Get("Date")}
	p.mediaType = e.mediaType
	p.from = headerPerson(h, "From")
	// Raw 8-bit header bytes (no RFC 2047) are common from old clients: decode them like unlabelled bodies.
	p.subject, _ = h.Subject()
	p.subject = collapseSpace(toUTF8([]byte(p.subject)))
	p.messageID = toUTF8([]byte(messageID(h)))

	c := &collector{depth: depth}
	c.walk(e)
	p.inner = c.inner
	if joined := strings.Join(c.plain, "\n"); strings.TrimSpace(joined) != "" {
		p.text = joined
	} else if len(c.html) > 0 {
		p.text = htmlToText(strings.Join(c.html, "\n"))
	}
	return p
}

func (c *collector) walk(e *entity) {
	c.parts++
	if c.parts > maxParts {
		return
	}
	mt, params := e.mediaType, e.params
	if e.typeErr != nil || mt == "" {
		mt, params = "text/plain", map[string]string{}
	}
	attached := false
	if v := e.header.Get("Content-Disposition"); v != "" { // most parts have none: skip parsing it
		disp, _, _ := e.header.ContentDisposition()
		attached = strings.EqualFold(disp, "attachment")
	}
	switch {
	case strings.HasPrefix(mt, "multipart/"):
		c.walkMultipart(e, params["boundary"])
	case mt == "message/rfc822" || mt == "message/global":
		if c.inner == nil && c.depth < maxDepth {
			if inner, err := readMessage(e.body, c.depth+1); err == nil {
				c.inner = inner
			}
		}
	case mt == "text/plain" && !attached:
		text := readText(e.body)
		if strings.EqualFold(params["format"], "flowed") {
			text = unflow(text, strings.EqualFold(params["delsp"], "yes"))
		}
		c.addPlain(text)
	case mt == "text/html" && !attached:
		if !c.hasText { // else the HTML alternative of text already read would not be used
			c.html = append(c.html, readText(e.body))
		}
	}
}

func (c *collector) addPlain(text string) {
	c.plain = append(c.plain, text)
	c.hasText = c.hasText || strings.TrimSpace(text) != ""
}

// walkMultipart visits the parts; when the structure is broken (no boundary, or a boundary that never
// appears) the body read so far is kept as plain text so that the customer's words are not lost.
func (c *collector) walkMultipart(e *entity, boundary string) {
	if boundary == "" {
		c.addPlain(readText(e.body))
		return
	}
	var seen bytes.Buffer
	keep := &limitedBuffer{buf: &seen, max: maxSalvageBytes}
	body := io.TeeReader(io.LimitReader(e.body, 64<<20), keep)
	mr := newPartReader(body, boundary)
	defer mr.close()
	before := len(c.plain) + len(c.html)
	found := 0
	for {
		child, err := mr.next()
		if err != nil {
			break // io.EOF, or damage: keep what was read
		}
		if found++; found == 1 {
			keep.max, seen = 0, bytes.Buffer{} // the structure holds: nothing to salvage
		}
		c.walk(child)
		if c.parts > maxParts {
			return
		}
	}
	if found == 0 && len(c.plain)+len(c.html) == before {
		c.addPlain(stripMIMEDebris(seen.String()))
	}
}

// limitedBuffer keeps the first max bytes written and silently drops the rest.
type limitedBuffer struct {
	buf *bytes.Buffer
	max int
}

func (l *limitedBuffer) Write(b []byte) (int, error) {
	if room := l.max - l.buf.Len(); room > 0 {
		l.buf.Write(b[:min(room, len(b))])
	}
	return len(b), nil
}

var mimeDebris = regexp.MustCompile(`(?im)^(--\S+|content-[a-z-]+:.*|mime-version:.*)$`)

func stripMIMEDebris(s string) string {
	return mimeDebris.ReplaceAllString(toUTF8([]byte(s)), "")
}

// readText reads a decoded text part. A transfer-encoding error midway keeps what was decoded before it.
func readText(r io.Reader) string {
	buf := textBufs.Get().(*bytes.Buffer)
	buf.Reset()
	_, _ = buf.ReadFrom(io.LimitReader(r, maxTextBytes)) // what was read before an error is kept
	s := toUTF8(buf.Bytes())                             // a copy: the buffer is reused
	if buf.Cap() <= 64<<10 {                             // an unusually large part's buffer is left to the collector
		textBufs.Put(buf)
	}
	return s
}

// textBufs are readText's buffers, reused so that reading a part costs one allocation (its string) rather
// than a growing series.
var textBufs = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// toUTF8 returns b as UTF-8. Bytes that are not UTF-8 are, in practice, Windows-1252 or Latin-1 sent without
// (or with a wrong) charset label; Windows-1252 is a superset of the printable Latin-1 range.
func toUTF8(b []byte) string {
	if utf8.Valid(b) {
		return string(b)
	}
	out, err := charmap.Windows1252.NewDecoder().Bytes(b)
	if err != nil {
		return strings.ToValidUTF8(string(b), "\uFFFD")
	}
	return string(out)
}

func headerPerson(h mail.Header, key string) person {
	if list, err := h.AddressList(key); err == nil && len(list) > 0 {
		return newPerson(list[0].Name, list[0].Address)
	}
	v, err := h.Text(key)
	if err != nil {
		v = h.Get(key)
	}
	return parsePerson(v)
}

func messageID(h mail.Header) string {
	if id, err := h.MessageID(); err == nil && id != "" {
		return id
	}
	fields := strings.Fields(h.Get("Message-Id"))
	if len(fields) == 0 {
		return ""
	}
	return strings.Trim(fields[0], "<>")
}

var addrPunct = strings.NewReplacer("mailto:", " ", "<", " ", ">", " ", "[", " ", "]", " ", "(", " ", ")", " ")

var addrRe = regexp.MustCompile(`[\p{L}\p{N}._%+'\-!#$&*/=?^{|}~]+@[\p{L}\p{N}-]+(?:\.[\p{L}\p{N}-]+)+`)

// parsePerson reads a free-form sender such as `Jane Doe <jane@acme.com>`, `"Doe, Jane" [mailto:jane@acme.com]`
// or a bare display name, as found in forwarded header blocks and broken From fields. What Outlook adds around
// a sender is dropped: "<mailto:…>" copies of the address, and "on behalf of …" (in the table's languages)
// after the sender who wrote.
func parsePerson(s string) person {
	s = cutBehalf(strings.TrimSpace(s))
	if a, err := mail.ParseAddress(s); err == nil {
		return newPerson(a.Name, a.Address)
	}
	loc := addrRe.FindStringIndex(s)
	if loc == nil {
		return person{name: trimName(s)}
	}
	email := strings.TrimRight(s[loc[0]:loc[1]], ".")
	name := s[:loc[0]] + " " + s[loc[1]:]
	if strings.Contains(name, "@") {
		name = addrRe.ReplaceAllString(name, " ") // the address repeated, or another one
	}
	return newPerson(addrPunct.Replace(name), email)
}

// cutBehalf keeps, of "X on behalf of Y", the side that holds an address, X when both do: X wrote the message.
func cutBehalf(s string) string {
	lower := strings.ToLower(s)
	if len(lower) != len(s) {
		return s // lowering changed the byte offsets; such a sender is left whole
	}
	for _, p := range behalfPhrases {
		k := strings.Index(lower, p)
		if k <= 0 {
			continue
		}
		left, right := s[:k], s[k+len(p):]
		if !strings.Contains(left, "@") && strings.Contains(right, "@") {
			return right
		}
		return left
	}
	return s
}

// newPerson normalises a name and address; Outlook often repeats the address as the display name, or in it.
func newPerson(name, email string) person {
	email = strings.ToLower(strings.TrimSpace(toUTF8([]byte(email))))
	name = toUTF8([]byte(name))
	if strings.Contains(name, "@") || strings.Contains(name, "mailto:") {
		name = addrPunct.Replace(addrRe.ReplaceAllString(name, " "))
	}
	name = trimName(name)
	if strings.EqualFold(name, email) {
		name = ""
	}
	return person{name: name, email: email}
}

func trimName(s string) string {
	return strings.Trim(collapseSpace(s), ` "'*,;:`)
}

func collapseSpace(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
