package email

import (
	"fmt"
	"strings"

	"github.com/emersion/go-message/mail"

	"github.com/feedbridge/feedbridge/connectors"
)

// Forward trust. The senders named inside a forward are only text that whoever sent the message wrote, so
// they are credited only when that sender is a colleague (internal_domains) whose address the receiving
// server did not find forged. Anyone else's forward counts as their own message.
//
// The receiving server's verdict is read from the topmost Authentication-Results header: a server adds its
// own above every header the message arrived with, so headers further down are the sender's to write. With
// an authserv-id configured, only headers of that id count and only an aligned pass there trusts a
// colleague (see authFailure), since that server stamps everything it receives.

// withAuthservID makes only the Authentication-Results of that server count (none: the topmost header).
func (p *Parser) withAuthservID(id string) *Parser {
	p.authservID = strings.TrimSpace(id)
	return p
}

var _ connectors.Warner = (*set)(nil)

// Warnings names the entries without internal_domains: nobody is a colleague there, so no forward can be
// trusted and each is credited to whoever sent it; and those with colleagues but without authserv_id, where
// a forged colleague's forward is trusted unless the message says its authentication failed.
func (s *set) Warnings() []string {
	var out []string
	for _, e := range s.entries {
		switch {
		case len(e.spec.InternalDomains) == 0:
			out = append(out, fmt.Sprintf("connectors.email %s: internal_domains is empty, so forwards cannot be "+
				"trusted: every message, forwarded or not, is credited to its sender", e.spec.Name))
		case strings.TrimSpace(e.spec.AuthservID) == "":
			out = append(out, fmt.Sprintf("connectors.email %s: authserv_id is not set, so a colleague's forward is "+
				"trusted unless its Authentication-Results say it failed: anyone who forges a colleague's From can "+
				"have the customer they name credited; set authserv_id to the authserv-id of your receiving server", e.spec.Name))
		}
	}
	return out
}

// logDistrust says why a message from a colleague's address was taken as its sender's own.
func (e *entry) logDistrust(f fetched) {
	if f.msg.Distrusted != "" {
		e.msgLog(f).WithField("reason", f.msg.Distrusted).
			Warn("email: colleague's address not trusted; message taken as its sender's own")
	}
}

// forwarderTrust reports whether the sender of the message in the mailbox may vouch for the senders inside
// it; when the sender is a colleague but is not trusted, why says so for the log.
func (p *Parser) forwarderTrust(top *part) (trusted bool, why string) {
	from := top.from.email
	if from == "" || !p.isInternal(from) {
		return false, ""
	}
	if why := authFailure(top.header, from, p.authservID); why != "" {
		return false, why
	}
	return true, ""
}

// authFailure returns why the receiving server's Authentication-Results discredit the sender's address, or "".
//
// With an authserv-id, trust fails closed: only the topmost header of that server is read, and the address
// is trusted only on a pass aligned with its domain (DMARC for it, or SPF or DKIM of it or a subdomain); no
// header, other servers' headers, a pass for another domain (the forger's own) or "none" all distrust it.
// Without one there is no telling the receiving server's header from one the sender wrote, so only an explicit
// failure in the topmost header counts; `config check` and the log warn about that.
func authFailure(h mail.Header, addr, authservID string) string {
	domain := domainOf(addr)
	if authservID == "" {
		vs := h.Values("Authentication-Results")
		if len(vs) == 0 {
			return ""
		}
		_, res := parseAuthResults(vs[0])
		return explicitFailure(res, addr, domain)
	}
	for _, v := range h.Values("Authentication-Results") {
		id, res := parseAuthResults(v)
		if !strings.EqualFold(id, authservID) {
			continue
		}
		if why := explicitFailure(res, addr, domain); why != "" {
			return why
		}
		if alignedPass(res, domain) {
			return ""
		}
		return "no DMARC, SPF or DKIM pass for " + domain + " from " + authservID + " for " + addr
	}
	return "no Authentication-Results from " + authservID + " for " + addr
}

// explicitFailure returns why the results say the address was forged: DMARC failed for its domain, or SPF
// and DKIM both failed for it without either passing.
func explicitFailure(res []authResult, addr, domain string) string {
	var spfFail, spfPass, dkimSeen, dkimPass bool
	for _, r := range res {
		switch r.method {
		case "dmarc":
			if d := r.props["header.from"]; d != "" && !strings.EqualFold(d, domain) {
				continue
			}
			switch r.result {
			case "pass":
				return ""
			case "fail":
				return "DMARC failed for " + addr
			}
		case "spf":
			if d := domainOf(r.props["smtp.mailfrom"]); d != "" && !aligned(d, domain) {
				continue
			}
			spfPass = spfPass || r.result == "pass"
			spfFail = spfFail || r.result == "fail" || r.result == "softfail"
		case "dkim":
			dkimSeen = true
			d := dkimDomain(r)
			dkimPass = dkimPass || r.result == "pass" && (d == "" || aligned(d, domain))
		}
	}
	if spfFail && dkimSeen && !spfPass && !dkimPass {
		return "SPF and DKIM failed for " + addr
	}
	return ""
}

// alignedPass reports whether the results vouch for domain: DMARC passed for it (a DMARC result names the
// From domain it judged; one without a name judged the message's only From), or SPF or DKIM passed for a
// domain that is named and aligned with it. A pass that names no domain proves nothing about this one.
func alignedPass(res []authResult, domain string) bool {
	for _, r := range res {
		if r.result != "pass" {
			continue
		}
		switch r.method {
		case "dmarc":
			if d := r.props["header.from"]; d == "" || strings.EqualFold(d, domain) {
				return true
			}
		case "spf":
			if d := domainOf(r.props["smtp.mailfrom"]); d != "" && aligned(d, domain) {
				return true
			}
		case "dkim":
			if d := dkimDomain(r); d != "" && aligned(d, domain) {
				return true
			}
		}
	}
	return false
}

// dkimDomain is the signing domain of a DKIM result: header.d, else the domain of header.i.
func dkimDomain(r authResult) string {
	if d := r.props["header.d"]; d != "" {
		return strings.ToLower(d)
	}
	return domainOf(r.props["header.i"])
}

// aligned reports whether two domains are the same or one is a subdomain of the other (DMARC's relaxed
// alignment, without a public suffix list).
func aligned(a, b string) bool {
	a, b = strings.ToLower(a), strings.ToLower(b)
	return a == b || strings.HasSuffix(a, "."+b) || strings.HasSuffix(b, "."+a)
}

func domainOf(addr string) string {
	if at := strings.LastIndexByte(addr, '@'); at >= 0 {
		addr = addr[at+1:]
	}
	return strings.ToLower(strings.Trim(addr, "<> "))
}

// authResult is one "method=result prop=value …" statement of an Authentication-Results header.
type authResult struct {
	method, result string
	props          map[string]string // lower-case property names ("header.from") to values
}

// maxAuthStatements bounds the statements read from one header, which a sender can make as long as it likes.
const maxAuthStatements = 32

// parseAuthResults reads an Authentication-Results value: the authserv-id, then the results. Comments are
// dropped; what cannot be read is skipped.
func parseAuthResults(v string) (authservID string, res []authResult) {
	stmts := strings.Split(stripComments(v), ";")
	if f := strings.Fields(stmts[0]); len(f) > 0 {
		authservID = f[0]
	}
	for _, s := range stmts[1:min(len(stmts), maxAuthStatements)] {
		words := strings.Fields(s)
		if len(words) == 0 {
			continue
		}
		method, result, ok := strings.Cut(words[0], "=")
		if !ok {
			continue // "none", or a version number
		}
		method, _, _ = strings.Cut(method, "/")
		r := authResult{method: strings.ToLower(method), result: strings.ToLower(result), props: map[string]string{}}
		for _, w := range words[1:] {
			if k, val, ok := strings.Cut(w, "="); ok {
				r.props[strings.ToLower(k)] = strings.Trim(val, `"`)
			}
		}
		res = append(res, r)
	}
	return authservID, res
}

// stripComments removes RFC 5322 comments (nested parentheses, with quoted pairs) and keeps quoted strings.
func stripComments(v string) string {
	var b strings.Builder
	depth, quoted, escaped := 0, false, false
	for _, c := range v {
		switch {
		case escaped:
			escaped = false
			if depth > 0 {
				continue
			}
		case c == '\\':
			escaped = true
			if depth > 0 {
				continue
			}
		case quoted:
			quoted = c != '"'
		case c == '"' && depth == 0:
			quoted = true
		case c == '(':
			depth++
			continue
		case c == ')' && depth > 0:
			depth--
			b.WriteByte(' ')
			continue
		case depth > 0:
			continue
		}
		b.WriteRune(c)
	}
	return b.String()
}
