package core

import (
	"fmt"
	"net"
	"net/mail"
	"strings"

	"golang.org/x/net/idna"
	"golang.org/x/net/publicsuffix"
)

// defaultPersonalDomains are mailbox providers whose users are people, not companies. Entries ending in
// ".*" match the name under any public suffix (hotmail.co.uk, yahoo.fr).
var defaultPersonalDomains = []string{
	"gmail.com", "googlemail.com", "outlook.com", "hotmail.*", "live.com", "live.*", "msn.com", "yahoo.*",
	"ymail.com", "icloud.com", "me.com", "mac.com", "aol.com", "proton.me", "protonmail.com", "protonmail.ch",
	"pm.me", "gmx.*", "web.de", "mail.ru", "yandex.*", "qq.com", "163.com", "126.com", "zoho.com",
	"fastmail.com", "fastmail.fm", "hey.com", "tutanota.com", "tuta.io", "mail.com", "inbox.com",
	"rocketmail.com", "rediffmail.com", "naver.com", "daum.net", "seznam.cz", "wp.pl", "o2.pl",
	"libero.it", "orange.fr", "free.fr", "laposte.net", "t-online.de", "btinternet.com", "comcast.net",
	"verizon.net", "att.net", "sbcglobal.net", "bigpond.com", "shaw.ca", "rogers.com", "sky.com",
}

// CompanyResolver derives the company of a customer email address from its registrable domain.
type CompanyResolver struct {
	exact    map[string]bool // full registrable domains
	wildcard map[string]bool // first labels that are personal under any suffix ("hotmail")
}

// NewCompanyResolver builds a resolver from the default personal-domain list, plus add, minus remove.
func NewCompanyResolver(add, remove []string) *CompanyResolver {
	r := &CompanyResolver{exact: map[string]bool{}, wildcard: map[string]bool{}}
	removed := map[string]bool{}
	for _, d := range remove {
		removed[strings.ToLower(strings.TrimSpace(d))] = true
	}
	for _, d := range append(append([]string{}, defaultPersonalDomains...), add...) {
		d = strings.ToLower(strings.TrimSpace(d))
		if d == "" || removed[d] {
			continue
		}
		if name, ok := strings.CutSuffix(d, ".*"); ok {
			r.wildcard[name] = true
		} else {
			r.exact[d] = true
		}
	}
	return r
}

// ParseEmail checks that s is one bare address (no display name, no list) and returns it trimmed.
func ParseEmail(s string) (string, error) {
	s = strings.TrimSpace(s)
	a, err := mail.ParseAddress(s)
	if err != nil || a.Name != "" || a.Address != s || strings.ContainsAny(s, "<>, \t") {
		return "", fmt.Errorf("%q is not a single email address", s)
	}
	if _, err := registrable(domainOf(s)); err != nil {
		return "", fmt.Errorf("%q has no valid domain", s)
	}
	return s, nil
}

func domainOf(addr string) string {
	at := strings.LastIndexByte(addr, '@')
	if at < 0 {
		return ""
	}
	return addr[at+1:]
}

// lookupProfile is IDNA lookup without STD3's host-name rule, because real mail domains carry underscores.
var lookupProfile = idna.New(idna.MapForLookup(), idna.StrictDomainName(false), idna.BidiRule())

// registrable returns the registrable domain (eTLD+1) in punycode.
func registrable(host string) (string, error) {
	host = strings.TrimSuffix(strings.ToLower(strings.TrimSpace(host)), ".")
	ascii, err := lookupProfile.ToASCII(host)
	if err != nil {
		return "", err
	}
	if !strings.Contains(ascii, ".") {
		return "", fmt.Errorf("domain %q has no suffix", host)
	}
	return publicsuffix.EffectiveTLDPlusOne(ascii)
}

// companyDomain reads the domain given for a company: a bare domain, or one written as a web address
// (https://www.globex.com/) or a mail address (sales@globex.com), and returns its registrable domain, the
// key records are grouped by, so that the company is the one feedback from that domain finds.
func companyDomain(s string) (string, error) {
	s = strings.TrimSpace(s)
	if _, rest, ok := strings.Cut(s, "://"); ok {
		s = rest
	}
	if i := strings.IndexAny(s, "/?#"); i >= 0 {
		s = s[:i]
	}
	if i := strings.LastIndexByte(s, '@'); i >= 0 {
		s = s[i+1:]
	}
	if h, _, err := net.SplitHostPort(s); err == nil {
		s = h
	}
	d, err := registrable(s)
	if err != nil {
		return "", err
	}
	for _, r := range d {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '.' || r == '-' || r == '_') {
			return "", fmt.Errorf("domain %q holds %q", d, r)
		}
	}
	return d, nil
}

// Resolve returns the company domain and the name a new company would get, or ok=false for personal
// mailbox domains and addresses without a usable domain.
func (r *CompanyResolver) Resolve(email string) (domain, name string, ok bool) {
	d, err := registrable(domainOf(email))
	if err != nil {
		return "", "", false
	}
	first, _, _ := strings.Cut(d, ".")
	if r.exact[d] || r.wildcard[first] {
		return "", "", false
	}
	name = CompanyNameFromDomain(d)
	if name == "" { // a first label of only '-' and '_' names no company
		return "", "", false
	}
	return d, name, true
}

// CompanyNameFromDomain names a company from its domain's first label: hyphens and underscores become
// spaces, each word capitalised ("acme-corp.co.uk" → "Acme Corp"). Punycode labels are shown in Unicode.
func CompanyNameFromDomain(domain string) string {
	first, _, _ := strings.Cut(domain, ".")
	if u, err := idna.ToUnicode(first); err == nil {
		first = u
	}
	words := strings.FieldsFunc(first, func(r rune) bool { return r == '-' || r == '_' })
	for i, w := range words {
		rs := []rune(w)
		rs[0] = []rune(strings.ToUpper(string(rs[0])))[0]
		words[i] = string(rs)
	}
	return strings.Join(words, " ")
}
