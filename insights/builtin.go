package insights

import (
	"context"
	"strings"
	"unicode/utf8"
)

// DefaultMaxInsights bounds the insights of one feedback: a pasted transcript of a hundred sentences would
// otherwise drown the workspace's signals.
const DefaultMaxInsights = 20

// Builtin is the offline extractor: rules over a lexicon, deterministic (the same input always gives the
// same insights) and fast enough to keep up with any import.
type Builtin struct {
	lx  *lexicon
	max int
}

var _ Extractor = (*Builtin)(nil)

// NewBuiltin returns the builtin extractor with at most maxInsights insights per feedback (≤ 0: the
// default).
func NewBuiltin(maxInsights int) *Builtin {
	if maxInsights <= 0 {
		maxInsights = DefaultMaxInsights
	}
	return &Builtin{lx: newLexicon(), max: maxInsights}
}

// Name is the extractor's name as stored with each insight.
func (b *Builtin) Name() string { return "builtin" }

// Extract returns one insight per sentence of the text that carries a signal, in text order. The title is
// read as the feedback's only sentence when the text has none, and tags it names apply to every insight.
func (b *Builtin) Extract(ctx context.Context, in Input) ([]Insight, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	tags := newTagMatcher(in.Tags)
	var toks []string
	var titleTags []string
	if len(tags.keys) > 0 && in.Title != "" {
		toks = tokenize(in.Title, toks[:0])
		titleTags = tags.match(normalizedKey(toks), nil)
	}
	out := b.extractText(in.Text, tags, titleTags, toks)
	if len(out) == 0 {
		out = b.extractText(in.Title, tags, titleTags, toks)
	}
	return out, nil
}

func (b *Builtin) extractText(text string, tags tagMatcher, titleTags, toks []string) []Insight {
	var out []Insight
	var strength []float64
	seen := map[string]bool{}
	for _, sp := range splitSentences(text) {
		quote := text[sp.start:sp.end]
		toks = tokenize(quote, toks[:0])
		if len(toks) == 0 || boilerplate(toks) {
			continue
		}
		v := b.lx.classify(toks, strings.ContainsRune(quote, '?'))
		if v.kind == "" || seen[strings.ToLower(quote)] {
			continue
		}
		seen[strings.ToLower(quote)] = true
		in := Insight{
			Kind:      v.kind,
			Quote:     quote,
			Sentiment: sentimentLabel(v.score),
			Score:     v.score,
			Themes:    themes(toks, v.used),
		}
		in.Summary = summarize(in)
		in.Tags = append([]string(nil), titleTags...)
		if len(tags.keys) > 0 {
			in.Tags = tags.match(normalizedKey(toks), in.Tags)
		}
		if in.Tags == nil {
			in.Tags = []string{}
		}
		if in.Themes == nil {
			in.Themes = []string{}
		}
		out = append(out, in)
		strength = append(strength, abs(v.score)+float64(len(in.Themes)))
	}
	return keepStrongest(out, strength, b.max)
}

// keepStrongest drops the weakest insights beyond max, keeping text order among the rest.
func keepStrongest(out []Insight, strength []float64, max int) []Insight {
	for len(out) > max {
		weakest := 0
		for i := range out {
			if strength[i] < strength[weakest] {
				weakest = i
			}
		}
		out = append(out[:weakest], out[weakest+1:]...)
		strength = append(strength[:weakest], strength[weakest+1:]...)
	}
	return out
}

// boilerplate reports greetings and sign-offs ("Hi team,", "Thanks, Jane", "Sent from my iPhone") that
// carry no signal however polite they are.
func boilerplate(toks []string) bool {
	if len(toks) >= 3 && toks[0] == "sent" && toks[1] == "from" {
		return true
	}
	polite, other := 0, 0
	for _, t := range toks {
		switch {
		case t == clauseBreak:
		case greetings[t]:
			polite++
		default:
			other++
		}
	}
	return polite > 0 && other <= 1 && polite+other <= 6
}

var greetings = setOf(`hi hello hey dear team all everyone folks there thanks thank you so much a lot in advance
cheers regards best kind warm sincerely br thx ty again many good morning afternoon evening guys`)

// summarize says in a few words what the insight is about: its kind and its first themes, or the start of
// the quote when it has no theme.
func summarize(in Insight) string {
	if len(in.Themes) == 0 {
		return truncate(in.Quote, 100)
	}
	topic := in.Themes[0]
	if len(in.Themes) > 1 {
		topic += " and " + in.Themes[1]
	}
	switch in.Kind {
	case KindRequest:
		return "Asks for " + topic
	case KindProblem:
		return "Problem with " + topic
	case KindPraise:
		return "Likes " + topic
	default:
		return "Asks about " + topic
	}
}

// truncate cuts s to at most n runes at a word boundary, marking the cut with an ellipsis.
func truncate(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	t := string([]rune(s)[:n-1])
	if k := strings.LastIndexByte(t, ' '); k > len(t)/2 {
		t = t[:k]
	}
	return strings.TrimRight(t, " ,;:-") + "…"
}

func abs(f float64) float64 {
	if f < 0 {
		return -f
	}
	return f
}
