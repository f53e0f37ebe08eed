package insights

import (
	"strings"

	"github.com/feedbridge/feedbridge/suggest"
	"unicode"
	"unicode/utf8"
)

// maxThemes bounds the key phrases of one insight; the first ones in the sentence are kept.
const maxThemes = 5

// themes are the runs of content words in a sentence that carried neither kind nor sentiment, at most
// three words each (the last three: English puts a phrase's head at its end), singular and lowercase.
func themes(toks []string, used []bool) []string {
	var out []string
	start := -1
	flush := func(end int) {
		if start < 0 {
			return
		}
		from := start
		if end-from > 3 {
			from = end - 3
		}
		if p := phrase(toks[from:end]); p != "" && !containsString(out, p) && len(out) < maxThemes {
			out = append(out, p)
		}
		start = -1
	}
	for i, t := range toks {
		if used[i] || !isContent(t) {
			flush(i)
			continue
		}
		if start < 0 {
			start = i
		}
	}
	flush(len(toks))
	return out
}

// withConcepts puts the product concepts a quote names (suggest's vocabulary: "SSO", "SAML login" and
// "single sign-on" are all "single sign-on") before its key phrases, a narrower theme before its concept
// ("csv export" before "export"), leaves out concepts too broad to be a theme alone, and keeps maxThemes
// in all.
func withConcepts(quote string, phrases []string) []string {
	names, stems := suggest.Concepts(quote)
	var out []string
	for _, name := range names {
		if n := narrower(name, names, stems); n != "" && !containsString(out, n) {
			out = append(out, n)
		}
		if !suggest.Broad(name) && !containsString(out, name) {
			out = append(out, name)
		}
	}
	for _, p := range phrases {
		if !containsString(out, p) {
			out = append(out, p)
		}
	}
	if len(out) > maxThemes {
		out = out[:maxThemes]
	}
	return out
}

// narrowing names, per concept, the words or concepts that make a narrower theme a product manager
// files separately, and the noun that theme ends in: a CSV export is not a PDF export.
var narrowing = map[string]struct {
	noun       string
	qualifiers []string // words (by stem) or other concepts of the same quote
}{
	"export":        {"export", []string{"csv", "pdf", "excel", "xlsx", "json", "xml"}},
	"import":        {"import", []string{"csv", "excel", "xlsx", "json", "xml"}},
	"sync":          {"sync", []string{"calendar", "crm", "cloud storage"}},
	"integrations":  {"integration", []string{"slack", "zapier", "crm", "help desk", "calendar", "team chat", "cloud storage"}},
	"notifications": {"notifications", []string{"push", "email", "slack", "sms"}},
	"performance":   {"performance", []string{"search", "dashboard", "reports", "mobile app", "sync", "import", "export"}},
	"reliability":   {"crash", []string{"crash"}},
}

// narrower is the narrower theme of concept name in a quote with these concepts and word stems, or "".
func narrower(name string, names, stems []string) string {
	n, ok := narrowing[name]
	if !ok {
		return ""
	}
	for _, q := range n.qualifiers {
		if q == n.noun {
			if containsString(stems, suggest.Stem(q)) {
				return q
			}
			continue
		}
		if containsString(names, q) || containsString(stems, suggest.Stem(q)) {
			return q + " " + n.noun
		}
	}
	return ""
}

func phrase(words []string) string {
	if len(words) == 1 && genericNouns[singular(words[0])] {
		return ""
	}
	var b strings.Builder
	for i, w := range words {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(singular(w))
	}
	return b.String()
}

func isContent(t string) bool {
	if t == clauseBreak || stopWords[t] || negators[t] || boosters[t] != 0 || fillers[t] || hypotheticals[t] {
		return false
	}
	r, _ := utf8.DecodeRuneInString(t)
	return !unicode.IsDigit(r) && !isEmoji(r) && utf8.RuneCountInString(t) > 1
}

// NormalizeTheme brings a key phrase from any extractor to the builtin's form (lowercase, singular words,
// no stop words, at most three words), so themes from different extractors roll up together. It returns
// "" when nothing of substance is left.
func NormalizeTheme(s string) string {
	toks := tokenize(s, nil)
	var words []string
	for _, t := range toks {
		if isContent(t) {
			words = append(words, t)
		}
	}
	if len(words) > 3 {
		words = words[len(words)-3:]
	}
	if len(words) == 0 {
		return ""
	}
	return phrase(words)
}

// tagMatcher finds the workspace tags a sentence names, ignoring case and plurals ("Mobile apps" names the
// tag "Mobile App").
type tagMatcher struct {
	labels []string
	keys   []string // " word word " of each label
}

func newTagMatcher(labels []string) tagMatcher {
	m := tagMatcher{}
	for _, l := range labels {
		if k := normalizedKey(tokenize(l, nil)); k != "  " {
			m.labels = append(m.labels, l)
			m.keys = append(m.keys, k)
		}
	}
	return m
}

// normalizedKey joins singular tokens with spaces and pads both ends, so a containment test matches whole
// words only.
func normalizedKey(toks []string) string {
	var b strings.Builder
	b.WriteByte(' ')
	for _, t := range toks {
		if t == clauseBreak {
			continue
		}
		b.WriteString(singular(t))
		b.WriteByte(' ')
	}
	if b.Len() == 1 {
		b.WriteByte(' ')
	}
	return b.String()
}

func (m tagMatcher) match(key string, dst []string) []string {
	for i, k := range m.keys {
		if strings.Contains(key, k) && !containsString(dst, m.labels[i]) {
			dst = append(dst, m.labels[i])
		}
	}
	return dst
}

func containsString(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}
