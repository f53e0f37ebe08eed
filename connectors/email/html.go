package email

import (
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
		tt := z.Next()
		if tt == html.ErrorToken {
			break
		}
		tok := z.Token()
		if skipDepth > 0 {
			switch {
			case tt == html.StartTagToken && tok.DataAtom == skip:
				skipDepth++
			case tt == html.EndTagToken && tok.DataAtom == skip:
				skipDepth--
			case tt == html.StartTagToken && skip == atom.Head && tok.DataAtom == atom.Body:
				skipDepth = 0 // a head that was never closed
			}
			continue
		}
		switch tt {
		case html.TextToken:
			w.text(tok.Data)
		case html.StartTagToken, html.SelfClosingTagToken:
			if skippedElements[tok.DataAtom] || isSignatureBlock(tok) {
				if tt == html.StartTagToken && tok.DataAtom != 0 {
					skip, skipDepth = tok.DataAtom, 1
				}
				continue
			}
			if tok.DataAtom == atom.P && isOutlookParagraph(tok) {
				w.openLineParagraph()
				continue
			}
			w.open(tok.DataAtom)
		case html.EndTagToken:
			if tok.DataAtom == atom.P && w.lineP >= 0 {
				w.closeLineParagraph()
				continue
			}
			w.close(tok.DataAtom)
		}
	}
	return w.b.String()
}

// isSignatureBlock recognises the signature containers of Gmail, Thunderbird and Outlook on the web.
func isSignatureBlock(t html.Token) bool {
	for _, a := range t.Attr {
		switch a.Key {
		case "class":
			for _, c := range strings.Fields(a.Val) {
				if c == "gmail_signature" || c == "moz-signature" {
					return true
				}
			}
		case "id":
			if strings.EqualFold(a.Val, "signature") {
				return true
			}
		case "data-smartmail":
			if a.Val == "gmail_signature" {
				return true
			}
		}
	}
	return false
}

// isOutlookParagraph recognises Outlook's MsoNormal paragraphs, which are lines rather than paragraphs: Outlook
// writes blank lines as empty paragraphs of their own.
func isOutlookParagraph(t html.Token) bool {
	for _, a := range t.Attr {
		if a.Key == "class" && strings.Contains(strings.ToLower(a.Val), "msonormal") {
			return true
		}
	}
	return false
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
