package email

import (
	"bytes"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// Elements whose content is never text a person wrote for us.
var skippedElements = map[atom.Atom]bool{
	atom.Script: true, atom.Style: true, atom.Head: true, atom.Title: true, atom.Template: true,
	atom.Noscript: true, atom.Svg: true, atom.Object: true, atom.Iframe: true, atom.Select: true,
}

// Elements that end a line; those in paragraphBreak also leave a blank line.
var (
	lineBreak = map[atom.Atom]bool{
		atom.Div: true, atom.Tr: true, atom.Li: true, atom.Dt: true, atom.Dd: true, atom.Ul: true, atom.Ol: true,
		atom.Table: true, atom.Section: true, atom.Article: true, atom.Header: true, atom.Footer: true,
		atom.Address: true, atom.Dl: true, atom.Form: true, atom.Center: true, atom.Main: true, atom.Nav: true,
		atom.Aside: true, atom.Figure: true, atom.Fieldset: true, atom.Caption: true,
	}
	paragraphBreak = map[atom.Atom]bool{
		atom.P: true, atom.H1: true, atom.H2: true, atom.H3: true, atom.H4: true, atom.H5: true, atom.H6: true,
	}
)

// htmlToText renders an HTML body as plain text for the cleaner: blocks become lines, blockquotes become
// "> " lines (so quoted history is recognised like in text mail), images, scripts, styles and the signature
// blocks of Gmail, Thunderbird and Outlook on the web are dropped. It streams tokens, so deeply nested or
// broken markup costs linear time.
func htmlToText(s string) string {
	z := html.NewTokenizer(strings.NewReader(s))
	w := &textWriter{lineStart: true, lineP: -1}
	var skip atom.Atom // element being skipped, with its nesting count
	skipDepth := 0
	for {
		// The tokenizer's own byte slices are read rather than a Token per token, which would copy every
		// tag name, attribute and text.
		tt := z.Next()
		if tt == html.ErrorToken {
			break
		}
		var (
			a       atom.Atom
			hasAttr bool
		)
		if tt == html.StartTagToken || tt == html.EndTagToken || tt == html.SelfClosingTagToken {
			var name []byte
			name, hasAttr = z.TagName()
			a = atom.Lookup(name)
		}
		if skipDepth > 0 {
			switch {
			case tt == html.StartTagToken && a == skip:
				skipDepth++
			case tt == html.EndTagToken && a == skip:
				skipDepth--
			case tt == html.StartTagToken && skip == atom.Head && a == atom.Body:
				skipDepth = 0 // a head that was never closed
			}
			continue
		}
		switch tt {
		case html.TextToken:
			w.text(string(z.Text()))
		case html.StartTagToken, html.SelfClosingTagToken:
			signature, outlookP := tagClasses(z, hasAttr)
			if skippedElements[a] || signature {
				if tt == html.StartTagToken && a != 0 {
					skip, skipDepth = a, 1
				}
				continue
			}
			if a == atom.P && outlookP {
				w.openLineParagraph()
				continue
			}
			w.open(a)
		case html.EndTagToken:
			if a == atom.P && w.lineP >= 0 {
				w.closeLineParagraph()
				continue
			}
			w.close(a)
		}
	}
	return w.b.String()
}

// tagClasses reads the attributes of the current tag: whether it is the signature container of Gmail,
// Thunderbird or Outlook on the web, and whether it has Outlook's MsoNormal class. Outlook's MsoNormal
// paragraphs are lines rather than paragraphs: Outlook writes blank lines as empty paragraphs of their own.
func tagClasses(z *html.Tokenizer, more bool) (signature, msoNormal bool) {
	for more {
		var key, val []byte
		key, val, more = z.TagAttr()
		switch string(key) {
		case "class":
			for c := range bytes.FieldsSeq(val) {
				if string(c) == "gmail_signature" || string(c) == "moz-signature" {
					signature = true
				}
			}
			msoNormal = msoNormal || bytes.Contains(bytes.ToLower(val), []byte("msonormal"))
		case "id":
			signature = signature || bytes.EqualFold(val, []byte("signature"))
		case "data-smartmail":
			signature = signature || string(val) == "gmail_signature"
		}
	}
	return signature, msoNormal
}

// textWriter accumulates text with collapsed whitespace, explicit line breaks and a "> " prefix per
// blockquote level.
type textWriter struct {
	b         strings.Builder
	quote     int
	pre       int
	lineStart bool
	space     bool
	newlines  int // newlines at the end of b
	cell      bool
	lineP     int // output length where an Outlook line paragraph began, -1 outside one
}

func (w *textWriter) openLineParagraph() {
	w.newline(1)
	w.lineP = w.b.Len()
}

// closeLineParagraph ends the line; an Outlook paragraph with no text is a blank line.
func (w *textWriter) closeLineParagraph() {
	if w.b.Len() == w.lineP {
		w.newline(2)
	} else {
		w.newline(1)
	}
	w.lineP = -1
}

func (w *textWriter) open(a atom.Atom) {
	switch {
	case a == atom.Br:
		w.br()
	case a == atom.Hr:
		w.newline(1)
		w.word("________________________________")
		w.newline(1)
	case a == atom.Blockquote:
		w.newline(1)
		w.quote = min(w.quote+1, 20)
	case a == atom.Pre:
		w.newline(1)
		w.pre++
	case a == atom.Li:
		w.newline(1)
		w.word("- ")
	case a == atom.Td || a == atom.Th:
		if w.cell {
			w.space = true
		}
		w.cell = true
	case a == atom.Tr:
		w.newline(1)
		w.cell = false
	case paragraphBreak[a]:
		w.newline(2)
	case lineBreak[a]:
		w.newline(1)
	}
}

func (w *textWriter) close(a atom.Atom) {
	switch {
	case a == atom.Blockquote:
		w.newline(1)
		w.quote = max(w.quote-1, 0)
	case a == atom.Pre:
		w.pre = max(w.pre-1, 0)
		w.newline(1)
	case paragraphBreak[a]:
		w.newline(2)
	case lineBreak[a]:
		w.newline(1)
	}
}

func (w *textWriter) text(s string) {
	if w.pre > 0 {
		for i, l := range strings.Split(s, "\n") {
			if i > 0 {
				w.br()
			}
			w.word(l)
		}
		return
	}
	for _, r := range s {
		if r == ' ' || r == '\t' || r == '\n' || r == '\r' || r == '\f' || r == '\u00a0' {
			w.space = !w.lineStart
			continue
		}
		w.rune(r)
	}
}

// word writes s as is (spaces kept), starting a line when needed.
func (w *textWriter) word(s string) {
	for _, r := range s {
		w.rune(r)
	}
}

func (w *textWriter) rune(r rune) {
	if w.lineStart {
		w.b.WriteString(strings.Repeat("> ", w.quote))
		w.lineStart = false
	} else if w.space {
		w.b.WriteByte(' ')
	}
	w.space = false
	w.b.WriteRune(r)
	w.newlines = 0
}

func (w *textWriter) br() {
	if w.newlines < 2 {
		w.nl()
	}
	w.lineStart, w.space = true, false
}

// nl ends a line. A blank line inside a blockquote keeps its ">" so the quoted block stays one block.
func (w *textWriter) nl() {
	if w.lineStart && w.quote > 0 && w.b.Len() > 0 {
		w.b.WriteString(strings.TrimSpace(strings.Repeat("> ", w.quote)))
	}
	w.b.WriteByte('\n')
	w.newlines++
	w.lineStart = true
}

// newline ensures the output ends with n line breaks (a blank line for n = 2), without adding to existing ones.
func (w *textWriter) newline(n int) {
	if w.b.Len() == 0 {
		return
	}
	for w.newlines < n {
		w.nl()
	}
	w.lineStart, w.space = true, false
}
