package core

import (
	"html"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/microcosm-cc/bluemonday"
	xhtml "golang.org/x/net/html"
	"golang.org/x/net/html/atom"
	"golang.org/x/text/cases"
)

// Fold returns s case-folded for Unicode case-insensitive comparison (ß matches ss, Σ matches σ).
// A cases.Caser is not safe for concurrent use, so each call makes its own; it is cheap.
func Fold(s string) string { return cases.Fold().String(s) }

func lower(s string) string { return strings.ToLower(strings.TrimSpace(s)) }

// Sanitizer keeps the allow-listed HTML of descriptions. Safe for concurrent use.
type Sanitizer struct{ policy *bluemonday.Policy }

// NewSanitizer builds the allow-list policy: user-generated-content markup, no scripts, styles, event
// handlers, javascript: or data: URLs. Script and style elements are dropped with their content.
func NewSanitizer() *Sanitizer {
	p := bluemonday.UGCPolicy()
	p.AllowURLSchemes("http", "https", "mailto")
	p.RequireNoFollowOnLinks(true)
	return &Sanitizer{policy: p}
}

// Sanitize returns s with everything outside the policy removed.
func (s *Sanitizer) Sanitize(in string) string { return s.policy.Sanitize(in) }

var looksHTML = regexp.MustCompile(`<[a-zA-Z!/][^>]*>|&[a-zA-Z#][a-zA-Z0-9]*;`)

// IsHTML reports whether s contains markup or entities worth parsing.
func IsHTML(s string) bool { return strings.ContainsAny(s, "<&") && looksHTML.MatchString(s) }

var blockAtoms = map[atom.Atom]bool{
	atom.P: true, atom.Div: true, atom.Li: true, atom.Ul: true, atom.Ol: true,
	atom.H1: true, atom.H2: true, atom.H3: true, atom.H4: true, atom.H5: true, atom.H6: true,
	atom.Tr: true, atom.Table: true, atom.Blockquote: true, atom.Pre: true, atom.Hr: true,
	atom.Section: true, atom.Article: true, atom.Header: true, atom.Footer: true, atom.Dt: true, atom.Dd: true,
}

var manyBlankLines = regexp.MustCompile(`\n{3,}`)

// HTMLToText returns the plain text of an HTML fragment: tags stripped, entities decoded, block elements
// become line breaks, script and style content dropped. Plain text passes through unchanged.
func HTMLToText(s string) string {
	if !IsHTML(s) {
		return strings.TrimSpace(s)
	}
	nodes, err := xhtml.ParseFragment(strings.NewReader(s), &xhtml.Node{Type: xhtml.ElementNode, Data: "body", DataAtom: atom.Body})
	if err != nil {
		return strings.TrimSpace(html.UnescapeString(s))
	}
	var b strings.Builder
	var walk func(n *xhtml.Node)
	walk = func(n *xhtml.Node) {
		switch n.Type {
		case xhtml.TextNode:
			b.WriteString(n.Data)
			return
		case xhtml.ElementNode:
			switch n.DataAtom {
			case atom.Script, atom.Style:
				return
			case atom.Br:
				b.WriteByte('\n')
				return
			}
		}
		block := n.Type == xhtml.ElementNode && blockAtoms[n.DataAtom]
		if block {
			b.WriteByte('\n')
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
		if block {
			b.WriteByte('\n')
		}
	}
	for _, n := range nodes {
		walk(n)
	}
	lines := strings.Split(b.String(), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " \t\r")
	}
	return strings.TrimSpace(manyBlankLines.ReplaceAllString(strings.Join(lines, "\n"), "\n\n"))
}

// tagLike matches real tag shapes only: <name …>, </name>, <!…>. Angle-bracketed links and addresses that
// plain mail is full of (<https://…>, <jane@acme.com>) do not match.
var tagLike = regexp.MustCompile(`</?[a-zA-Z][a-zA-Z0-9-]*(?:[\s/][^<>]*)?>|<![^<>]*>`)

// StripTags removes anything shaped like a tag from plain text, repeatedly, so that a description decoded
// from entities (&lt;script&gt;) or typed as text can never carry markup into a response.
func StripTags(s string) string {
	for i := 0; i < 8 && tagLike.MatchString(s); i++ {
		s = tagLike.ReplaceAllString(s, "")
	}
	return s
}

// runeLen counts characters, the unit of every length limit in the contract.
func runeLen(s string) int { return utf8.RuneCountInString(s) }

// Truncate cuts s to at most max characters, ending with mark when it had to cut (mark counts against
// max). Connectors use it to fit outside text into the contract's limits instead of refusing it.
func Truncate(s string, max int, mark string) string {
	if runeLen(s) <= max {
		return s
	}
	keep := max - runeLen(mark)
	i, n := 0, 0
	for i < len(s) && n < keep {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
		n++
	}
	return strings.TrimRight(s[:i], " \n\t") + mark
}
