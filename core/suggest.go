package core

import (
	"context"
	"fmt"
	"slices"
	"strconv"
)

// Matcher ranks the Ideas and Features of a workspace against a text. The suggest package implements it;
// core only asks it for candidates and decides itself what may be shown.
type Matcher interface {
	Match(ctx context.Context, ws ID, q MatchQuery) ([]Match, error)
}

// MatchQuery is what a record asks of a Matcher. Themes are the record's insight themes, which may name
// what the text only circles around.
type MatchQuery struct {
	Title  string
	Text   string
	Themes []string
	Skip   ID // the asking record itself
	Limit  int
}

// Match is one candidate: Score in 0…1, best first, and Reason naming what the texts share.
type Match struct {
	ID     ID
	Score  float64
	Reason string
}

// Suggestion is one answer of GET /records/{id}/suggestions.
type Suggestion struct {
	Record Record
	Score  float64
	Reason string
}

// Suggestion limits.
const (
	DefaultSuggestions = 5
	MaxSuggestions     = 20
)

// Suggestions lists the Ideas and Features a Feedback most likely asks for, or that most likely duplicate an
// Idea or Feature, best first. Other record types have none.
func (s *Service) Suggestions(ctx context.Context, ws, id ID, limit string) ([]Suggestion, error) {
	n := DefaultSuggestions
	if limit != "" {
		v, err := strconv.Atoi(limit)
		if err != nil || v < 1 || v > MaxSuggestions {
			return nil, invalid("limit", "invalid limit", "limit must be a whole number from 1 to %d.", MaxSuggestions)
		}
		n = v
	}
	rec, err := s.store.Record(ctx, ws, id)
	if err != nil {
		return nil, err
	}
	var ins []Insight
	if rec.Type == RecordFeedback && s.matcher != nil {
		if ins, err = s.store.Insights(ctx, ws, rec.ID); err != nil {
			return nil, fmt.Errorf("core: suggestions: insights: %w", err)
		}
	}
	return s.SuggestionsFor(ctx, ws, rec, ins, n)
}

// SuggestionsFor is Suggestions for a record, and a Feedback's insights, that the caller has read already
// (a record page shows both), so that they are not read a second time. n outside 1…MaxSuggestions asks
// for DefaultSuggestions.
func (s *Service) SuggestionsFor(ctx context.Context, ws ID, rec Record, ins []Insight, n int) ([]Suggestion, error) {
	if n < 1 || n > MaxSuggestions {
		n = DefaultSuggestions
	}
	if rec.Type == RecordObjective {
		return []Suggestion{}, nil
	}
	if s.matcher == nil {
		return nil, fmt.Errorf("core: suggestions: no matcher configured")
	}
	q := MatchQuery{Title: rec.Title, Text: rec.Description, Skip: rec.ID}
	if rec.Type == RecordFeedback {
		for _, in := range ins {
			q.Themes = append(q.Themes, in.Themes...)
		}
	}
	// A few candidates beyond the limit make up for those left out; only when more than that are left out
	// is the matcher asked again, for many more.
	var (
		out []Suggestion
		err error
	)
	for _, extra := range []int{5, 4*n + 20} {
		q.Limit = n + extra
		var full bool
		out, full, err = s.suggest(ctx, ws, rec, q, n)
		if err != nil {
			return nil, err
		}
		if len(out) == n || !full {
			break
		}
	}
	return out, nil
}

// suggest asks the matcher and keeps up to n of its candidates that may be shown; full says the matcher
// had as many candidates as asked for, so asking for more may find more.
func (s *Service) suggest(ctx context.Context, ws ID, rec Record, q MatchQuery, n int) ([]Suggestion, bool, error) {
	ms, err := s.matcher.Match(ctx, ws, q)
	if err != nil {
		return nil, false, fmt.Errorf("core: suggestions: %w", err)
	}
	// The index may be a moment behind the store; the candidates are read again so that what is shown is
	// current, and a record deleted or merged since is left out.
	ids := make([]ID, len(ms))
	for i, m := range ms {
		ids[i] = m.ID
	}
	recs, err := s.store.RecordsByID(ctx, ws, ids)
	if err != nil {
		return nil, false, fmt.Errorf("core: suggestions: read candidates: %w", err)
	}
	byID := make(map[ID]Record, len(recs))
	for _, r := range recs {
		byID[r.ID] = r
	}
	out := []Suggestion{}
	for _, m := range ms {
		c, ok := byID[m.ID]
		if !ok || suggestionExcluded(rec, c) {
			continue
		}
		out = append(out, Suggestion{Record: c, Score: m.Score, Reason: m.Reason})
		if len(out) == n {
			break
		}
	}
	return out, len(ms) == q.Limit, nil
}

// suggestionExcluded says whether candidate c may not be suggested for target rec: itself, anything but an
// Idea or Feature, what is merged, what a feedback is already linked to, and for duplicates the record rec
// is merged into or that is merged into rec. This is the one place that decides it.
func suggestionExcluded(rec, c Record) bool {
	if c.ID == rec.ID || (c.Type != RecordIdea && c.Type != RecordFeature) {
		return true
	}
	if c.Status == StatusMerged || c.MergedInto != "" || slices.Contains(rec.Links, c.ID) {
		return true
	}
	return rec.MergedInto == c.ID
}

// matcherChanged hands a created or edited Idea or Feature to a matcher that keeps an index, so that its
// next answer on this replica includes it; other replicas see it after their matcher's refresh. A deleted or
// merged record needs no call: Suggestions reads every candidate again and leaves those out.
func (s *Service) matcherChanged(ws ID, r Record) {
	if r.Type != RecordIdea && r.Type != RecordFeature {
		return
	}
	if c, ok := s.matcher.(interface{ Changed(ws ID, r Record) }); ok {
		c.Changed(ws, r)
	}
}
