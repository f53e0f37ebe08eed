package suggest

import "slices"

// broadConcepts name what nearly every text touches ("team" in a greeting, "weekly" for the digest, "fast"
// for performance): fine to rank suggestions by, too loose to file a theme under.
var broadConcepts = []string{"team", "increase", "view", "status", "noise", "digest", "reliability", "performance",
	"web app", "mentions", "comments", "projects", "tasks", "products", "files", "labels", "priority", "layout",
	"appearance", "delete", "undo", "search", "email", "sharing", "reports", "shipping", "deadlines", "recurring",
	"time tracking", "returns", "permissions", "invoices"}

// Concepts names the product concepts a text mentions, in the order they first occur, by the same
// vocabulary, stemming and phrase matching that rank suggestions, so that the theme an insight is filed
// under is the one a suggestion and a search use. Concepts too broad to be a theme are left out.
func Concepts(text string) []string {
	lex := defaultLexicon()
	toks := tokenize(text)
	var out []string
	lex.match(toks, func(_, c int) {
		name := lex.names[c]
		if !slices.Contains(out, name) && !slices.Contains(broadConcepts, name) {
			out = append(out, name)
		}
	})
	return out
}
