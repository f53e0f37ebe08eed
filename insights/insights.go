// Package insights turns the text of a feedback into structured insights (requests, problems, praise and
// questions) and rolls insights up into workspace-wide signals. It holds the offline builtin extractor, an
// extractor for any OpenAI-compatible chat-completions endpoint, and the worker pool that drains the queue.
package insights

import "context"

// Kinds of insight.
const (
	KindRequest  = "request"
	KindProblem  = "problem"
	KindPraise   = "praise"
	KindQuestion = "question"
)

// Sentiment labels.
const (
	SentimentPositive = "positive"
	SentimentNeutral  = "neutral"
	SentimentNegative = "negative"
)

// Input is what an extractor reads: the record's title, its plain-text description and the labels of the
// workspace's tags (so insights can name the tags the text mentions).
type Input struct {
	Title string
	Text  string
	Tags  []string
}

// Insight is one thing a customer said: Quote is the exact sentence, Score lies in −1…1 and agrees with
// Sentiment, Themes are normalized key phrases and Tags are workspace tag labels named in the text.
type Insight struct {
	Kind      string   `json:"kind"`
	Summary   string   `json:"summary"`
	Quote     string   `json:"quote"`
	Sentiment string   `json:"sentiment"`
	Score     float64  `json:"sentiment_score"`
	Themes    []string `json:"themes"`
	Tags      []string `json:"tags"`
}

// Extractor turns one feedback into insights. Implementations are safe for concurrent use.
type Extractor interface {
	Extract(ctx context.Context, in Input) ([]Insight, error)
	Name() string
}

// sentimentLabel maps a score to its label; the dead zone keeps a stray mild word from colouring a
// sentence that is really neutral.
func sentimentLabel(score float64) string {
	switch {
	case score >= 0.05:
		return SentimentPositive
	case score <= -0.05:
		return SentimentNegative
	default:
		return SentimentNeutral
	}
}
