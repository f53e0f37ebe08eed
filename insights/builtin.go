package insights

import (
	"context"
	"math"
	"strings"
	"unicode/utf8"
)

// DefaultMaxInsights bounds the insights of one feedback: a pasted transcript of a hundred sentences would
// otherwise drown the workspace's signals.
const DefaultMaxInsights = 20

// Builtin is the offline extractor: a cue lexicon and a small learned model over words and those cues,
// deterministic (the same input always gives the same insights) and fast enough to keep up with any import.
type Builtin struct {
	lx  *lexicon
	m   *model
	max int
}

var _ Extractor = (*Builtin)(nil)

// NewBuiltin returns the builtin extractor with at most maxInsights insights per feedback (≤ 0: the
// default).
func NewBuiltin(maxInsights int) *Builtin {
	if maxInsights <= 0 {
		maxInsights = DefaultMaxInsights
	}
	m, err := builtinModel()
	if err != nil {
		// The model is part of the binary; a corrupt one is a build defect that tests catch.
		panic(err)
	}
	return &Builtin{lx: newLexicon(), m: m, max: maxInsights}
}

// Name is the extractor's name as stored with each insight.
func (b *Builtin) Name() string { return "builtin" }

// Extract returns one insight per sentence of the text that carries a signal, in text order. The title is
// read as the feedback's only sentence when the text has none, and tags it names apply to every insight.
// A text with words always yields at least one insight: when no sentence carries a signal of its own, the
// sentence the model finds most telling gives its best kind.
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
	out, inText := b.extractText(in.Text, tags, titleTags, toks, false)
	if len(out) == 0 {
		var inTitle bool
		out, inTitle = b.extractText(in.Title, tags, titleTags, toks, false)
		switch {
		case len(out) > 0:
		case inText:
			out, _ = b.extractText(in.Text, tags, titleTags, toks, true)
		case inTitle:
			out, _ = b.extractText(in.Title, tags, titleTags, toks, true)
		}
	}
	return out, nil
}

// extractText returns the insights of text's sentences. With best set it returns only the insight of the
// sentence least likely to carry none, read as its likeliest kind. fallback reports that text has a
// sentence with words, so a second call with best set yields an insight.
func (b *Builtin) extractText(text string, tags tagMatcher, titleTags, toks []string, best bool) (out []Insight, fallback bool) {
	var strength []float64
	seen := map[string]bool{}
	var feats []uint32
	bestQuote, bestKind, bestP := span{}, "", -1.0
	afterPolite := false
	var clauseToks []string
	var clauseFeats []uint32
	for pass := 0; pass < 2; pass++ {
		for _, sp := range splitSentences(text) {
			quote := text[sp.start:sp.end]
			toks = tokenize(quote, toks[:0])
			if len(toks) == 0 {
				continue
			}
			if pass == 1 && sp != bestQuote {
				continue
			}
			q := strings.ContainsRune(quote, '?')
			v := b.lx.classify(toks, q)
			feats = sentenceFeatures(toks, q, v, feats)
			p := b.m.predict(feats)
			kind := modelClasses[argmax(p[:])]
			if best {
				if pass == 0 {
					if some := 1 - p[0]; some > bestP {
						bestQuote, bestP = sp, some
						bestKind = modelClasses[1+argmax(p[1:])]
					}
					continue
				}
				kind = bestKind
			} else {
				fallback = true
				polite := boilerplate(toks)
				// A name or two under "Thanks," signs the message off.
				signature := afterPolite && len(toks) <= 3 && v.kind == ""
				afterPolite = polite
				if polite || signature || kind == classNone || seen[strings.ToLower(quote)] {
					continue
				}
			}
			seen[strings.ToLower(quote)] = true
			if best {
				out, strength = appendInsight(out, strength, kind, quote, v, toks, tags, titleTags)
				continue
			}
			kind, v = refineKind(kind, v, toks, p[1])
			parts := b.splitClauses(text, sp, kind, v, clauseToks[:0], clauseFeats[:0])
			if parts == nil {
				out, strength = appendInsight(out, strength, kind, quote, v, toks, tags, titleTags)
				continue
			}
			for _, c := range parts {
				cq := text[c.sp.start:c.sp.end]
				clauseToks = tokenize(cq, clauseToks[:0])
				cv := b.lx.classify(clauseToks, strings.ContainsRune(cq, '?'))
				if c.complaint {
					cv.score, cv.complaint = math.Min(cv.score, -0.25), true
				}
				out, strength = appendInsight(out, strength, c.kind, cq, cv, clauseToks, tags, titleTags)
			}
		}
		if !best {
			break
		}
	}
	return keepStrongest(out, strength, b.max), fallback
}

// appendInsight adds the insight of one quote, a sentence or a clause of one, and its strength.
func appendInsight(out []Insight, strength []float64, kind, quote string, v verdict, toks []string,
	tags tagMatcher, titleTags []string) ([]Insight, []float64) {
	score := kindSentiment(kind, v.score)
	if kind == KindPraise && (v.complaint || v.sc.opin > v.sc.praise) {
		// Praise is also the kind of a rating or an experience, and a complaint keeps its sentiment.
		score = math.Min(v.score, -0.25)
	}
	in := Insight{
		Kind:      kind,
		Quote:     quote,
		Sentiment: sentimentLabel(score),
		Score:     score,
		Themes:    withConcepts(quote, themes(toks, v.used)),
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
	return append(out, in), append(strength, abs(score)+float64(len(in.Themes)))
}

func argmax(p []float64) int {
	best := 0
	for i := range p {
		if p[i] > p[best] {
			best = i
		}
	}
	return best
}

// kindSentiment makes the lexicon's sentiment score agree with the kind: a problem is a complaint and
// praise pleased someone whatever words they used, a question is neutral, and a request is neutral unless
// it is voiced in clearly negative words ("long overdue", "wastes so much space"): "it would be great to
// have SSO" asks for something, it does not say anything is great.
func kindSentiment(kind string, score float64) float64 {
	switch kind {
	case KindProblem:
		if score > -0.05 {
			return -0.25
		}
	case KindPraise:
		if score < 0.05 {
			return 0.25
		}
	case KindRequest:
		if score > -0.3 {
			return 0
		}
	default:
		return 0
	}
	return score
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
	for _, t := range in.Themes[1:] {
		// "csv export and export" says nothing more than "csv export"
		if !strings.HasSuffix(topic, " "+t) {
			topic += " and " + t
			break
		}
	}
	switch in.Kind {
	case KindRequest:
		return "Asks for " + topic
	case KindProblem:
		return "Problem with " + topic
	case KindPraise:
		if in.Score < 0 {
			return "Dislikes " + topic
		}
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
