// Package themeshare computes, from a batch of finished insight jobs, what the stores write: each record's
// final insights, and each record's share of every theme they name, which the theme roll-up adds up. The
// stores take the shares from the insights in hand rather than reading back what they have just written.
package themeshare

import (
	"slices"
	"strings"

	"github.com/feedbridge/feedbridge/core"
)

// Latest returns, in order of first appearance, the result that decides each record's insights: the last
// one naming it, as if the results were written one after another.
func Latest(results []core.JobResult) []core.JobResult {
	last := make(map[core.ID]int, len(results))
	for i, r := range results {
		last[r.Job.RecordID] = i
	}
	out := make([]core.JobResult, 0, len(last))
	for _, r := range results {
		if j, ok := last[r.Job.RecordID]; ok {
			out = append(out, results[j])
			delete(last, r.Job.RecordID)
		}
	}
	return out
}

// Share is a record's share of one theme: how many of its insights name the theme (an insight counts once
// however often it names it), the sum of their sentiment scores, and how many are of each counted kind.
type Share struct {
	Workspace, Record core.ID
	Theme             string
	N, Req, Prob      int
	Praise, Quest     int
	Score             float64
}

// Shares returns the shares of the record of result r, ordered by theme; blank themes are not counted.
func Shares(r core.JobResult) []Share {
	var out []Share
	at := map[string]int{}
	for _, in := range r.Insights {
		for i, theme := range in.Themes {
			if theme == "" || slices.Contains(in.Themes[:i], theme) {
				continue
			}
			k, ok := at[theme]
			if !ok {
				k = len(out)
				at[theme] = k
				out = append(out, Share{Workspace: r.Job.Workspace, Record: r.Job.RecordID, Theme: theme})
			}
			s := &out[k]
			s.N++
			s.Score += in.SentimentScore
			switch in.Kind {
			case "request":
				s.Req++
			case "problem":
				s.Prob++
			case "praise":
				s.Praise++
			case "question":
				s.Quest++
			}
		}
	}
	slices.SortFunc(out, func(a, b Share) int { return strings.Compare(a.Theme, b.Theme) })
	return out
}
