package suggest

import "slices"

// broadConcepts name what nearly every text touches ("team" in a greeting, "weekly" for the digest, "fast"
// for performance): fine to rank suggestions by, too loose to file a theme under.
var broadConcepts = []string{"team", "increase", "view", "status", "noise", "digest", "reliability", "performance",
	"web app", "mentions", "comments", "projects", "tasks", "products", "files", "labels", "priority", "layout",
	"appearance", "delete", "undo", "search", "email", "sharing", "reports", "shipping", "deadlines", "recurring",
	"time tracking", "returns", "permissions", "invoices", "versions", "checkout"}

// Concepts names the product concepts a text mentions, in the order they first occur, by the same
// vocabulary, stemming and phrase matching that rank suggestions, so that the theme an insight is filed
// under is the one a suggestion and a search use; stems are the text's word stems, for telling a
// narrower theme ("csv export") from its concept.
func Concepts(text string) (names []string, stems []string) {
	lex := defaultLexicon()
	toks := tokenize(text)
	lex.match(toks, func(_, c int) {
		if name := lex.names[c]; !slices.Contains(names, name) {
			names = append(names, name)
		}
	})
	stems = make([]string, len(toks))
	for i, t := range toks {
		stems[i] = t.stem
	}
	return names, stems
}

// Broad tells a concept too broad to file a theme under on its own.
func Broad(name string) bool { return slices.Contains(broadConcepts, name) }

// Stem is the stem the concept matching gives a word.
func Stem(word string) string { return cachedStem(word) }
