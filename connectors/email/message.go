package email

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strconv"
	"strings"

	"github.com/feedbridge/feedbridge/core"
)

// The core's limits of the record fields; longer values are cut rather than refused, because a customer's
// long message is still feedback.
const (
	maxTitle       = core.MaxTitle
	maxDescription = core.MaxDescription
	truncatedMark  = "\n\n[truncated]"
)

// ErrNoContent is returned for a message with neither a subject nor any body text: there is nothing to title a
// record with, so the poller treats it as unparseable.
var ErrNoContent = errors.New("email: message has no subject and no text")

// Message is what one email contributes to a Feedback record.
type Message struct {
	// MessageID is the Message-ID without angle brackets, "" when the message has none.
	MessageID string `json:"message_id"`
	// DedupKey identifies the message within a workspace: derived from the Message-ID, the sender and a
	// digest of the content, or from a hash of sender, date, subject and text when the Message-ID is missing.
	DedupKey      string `json:"dedup_key"`
	Title         string `json:"title"`
	Description   string `json:"description"`
	CustomerEmail string `json:"customer_email"`
	CustomerName  string `json:"customer_name"`
	// Reporter is the address of the colleague who forwarded the message (or wrote it, when internal).
	Reporter  string `json:"reporter"`
	Forwarded bool   `json:"forwarded"`
	// Distrusted says why the sender, a colleague by address, was not trusted to vouch for the senders inside
	// a forward (the receiving server found the address forged); the message then counts as the sender's own.
	Distrusted string `json:"distrusted,omitempty"`
	// SkipReason is non-empty for auto-replies and bounces, which must not become records.
	SkipReason string `json:"skip_reason,omitempty"`
}

// Parser turns raw RFC 5322 messages into Messages. It holds only configuration, so one Parser may be shared.
type Parser struct {
	internal   []string // lowercase domains whose senders are colleagues
	authservID string   // when set, only Authentication-Results of this server count (trust.go)
}

// NewParser returns a Parser that treats senders of internalDomains (and their subdomains) as colleagues.
func NewParser(internalDomains []string) *Parser {
	p := &Parser{}
	for _, d := range internalDomains {
		d = strings.Trim(strings.ToLower(strings.TrimSpace(d)), "@.")
		if d != "" {
			p.internal = append(p.internal, d)
		}
	}
	return p
}

// Parse reads one message. A message whose header cannot be read, or that has no subject and no text, is an
// error; damaged MIME bodies are salvaged as far as they go.
func (p *Parser) Parse(raw []byte) (Message, error) {
	top, err := readPart(raw, 0)
	if err != nil {
		return Message{}, err
	}
	m := Message{MessageID: top.messageID, SkipReason: skipReason(top)}
	levels := forwardChain(top)
	m.Forwarded = len(levels) > 1
	trusted, why := p.forwarderTrust(top)
	m.Distrusted = why
	k := p.credit(&m, levels, trusted)
	switch {
	case k < 0 && trusted:
		k = len(levels) - 1 // nobody outside: the innermost message is still the feedback
	case k < 0:
		k = 0 // an untrusted forward is its sender's own message
	}

	desc := cleanBody(levels[k].text)
	if desc == "" {
		// An external forwarder who added no note: the forwarded text is what they meant.
		desc = cleanBody(levels[len(levels)-1].text)
	}
	m.Description = core.Truncate(strings.TrimSpace(desc), maxDescription, truncatedMark)
	m.Title = titleFrom(levels, k)
	if m.Title == "" {
		m.Title = firstLine(m.Description)
	}
	m.Title = core.Truncate(m.Title, maxTitle, "…")
	if m.Title == "" {
		return Message{}, ErrNoContent
	}
	m.DedupKey = dedupKey(m, top, trusted)
	return m, nil
}

// forwardChain unfolds inline forwards and forwards as message/rfc822 attachments into levels, outermost
// (the message in the mailbox) first.
func forwardChain(top *part) []level {
	levels := []level{{from: top.from, subject: top.subject}}
	for cur := top; ; {
		lead, hops, ok := findForwards(cur.text, isForwardSubject(cur.subject))
		if ok {
			levels[len(levels)-1].text = lead
			return append(levels, hops...)
		}
		levels[len(levels)-1].text = cur.text
		if cur.inner == nil {
			return levels
		}
		cur = cur.inner
		levels = append(levels, level{from: cur.from, subject: cur.subject})
	}
}

// titleFrom takes the subject of the customer's message, else the nearest subject inside it, else outside.
func titleFrom(levels []level, k int) string {
	for i := k; i < len(levels); i++ {
		if t := cleanSubject(levels[i].subject); t != "" {
			return t
		}
	}
	for i := k - 1; i >= 0; i-- {
		if t := cleanSubject(levels[i].subject); t != "" {
			return t
		}
	}
	return ""
}

// credit picks the customer, the innermost sender of the forward chain who is not a colleague, and returns
// that level (-1 for none). Untrusted, only the sender of the message in the mailbox counts (trust.go). A
// sender shown by display name only is passed over: Exchange does that for people of its own organisation.
// Whoever put the message into the mailbox is the reporter, unless that is the customer. A colleague's
// address the receiving server found forged is treated as its outer sender: the customer, never a reporter.
func (p *Parser) credit(m *Message, levels []level, trusted bool) int {
	customer := -1
	inner := len(levels) - 1
	if !trusted {
		inner = 0
	}
	for i := inner; i >= 0; i-- {
		// A colleague's address the receiving server found forged is the message's sender like any outsider.
		if e := levels[i].from.email; e != "" && (!p.isInternal(e) || m.Distrusted != "") {
			customer = i
			break
		}
	}
	if customer >= 0 {
		m.CustomerEmail, m.CustomerName = levels[customer].from.email, levels[customer].from.name
	}
	if customer != 0 && m.Distrusted == "" {
		m.Reporter = levels[0].from.email
	}
	return customer
}

func (p *Parser) isInternal(addr string) bool {
	at := strings.LastIndexByte(addr, '@')
	if at < 0 {
		return false
	}
	domain := strings.ToLower(addr[at+1:])
	for _, d := range p.internal {
		if domain == d || strings.HasSuffix(domain, "."+d) {
			return true
		}
	}
	return false
}

// dedupKey prefers the Message-ID together with the sender's address and a digest of what the message says
// (its Date, subject and text, and whether its sender was trusted to vouch for a forward). Anyone can send a
// message with another's Message-ID and From, so those two alone let a forger who is first have the genuine
// message skipped as its duplicate; with the digest, only a message that would make the same record is
// one. All of it stays the same when the same message is fetched again (after a UIDVALIDITY change, or from a
// second mailbox). Without a Message-ID it hashes what stays the same on such a re-read, so a re-read still
// finds the first record.
func dedupKey(m Message, top *part, trusted bool) string {
	if m.MessageID != "" {
		h := sha256.New()
		for _, s := range []string{top.dateRaw, top.subject, top.text, strconv.FormatBool(trusted)} {
			h.Write([]byte(s))
			h.Write([]byte{0})
		}
		return "email:" + m.MessageID + " <" + top.from.email + "> " + hex.EncodeToString(h.Sum(nil)[:16])
	}
	h := sha256.New()
	for _, s := range []string{top.fromRaw, top.dateRaw, top.subject, m.Description} {
		h.Write([]byte(s))
		h.Write([]byte{0})
	}
	return "email:sha256:" + hex.EncodeToString(h.Sum(nil))
}

func firstLine(s string) string {
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			return l
		}
	}
	return ""
}
