package core

import (
	"sort"
	"time"
)

// MaxSignalExamples is how many record ids a theme signal names as examples.
const MaxSignalExamples = 3

// SignalQuery asks the store for the themes of the insights of records created in [From, To], with their
// counts in [PrevFrom, PrevTo] for the trend; Limit themes at most, most frequent first.
type SignalQuery struct {
	From, To         time.Time
	PrevFrom, PrevTo time.Time
	Limit            int
}

// ThemeSignal is one theme's totals over a window, aggregated by the store: an insight counts once per
// theme it names. Themes come most frequent first, then by more records, then by theme (byte order).
type ThemeSignal struct {
	Theme     string
	Count     int            // insights naming the theme
	Records   int            // distinct records among them
	ScoreSum  float64        // sum of their sentiment scores
	Kinds     map[string]int // insights per kind
	Companies []string       // distinct company names, most insights first, then by name
	Examples  []ID           // up to MaxSignalExamples records, newest insight first (ties: larger id)
	Previous  int            // insights naming the theme in the previous window
}

// ThemePart is one row of a store's single-query theme aggregation: a theme's totals (Part 'T', N its
// rank), one of its companies ('C', Value the name, N its insights) or one of its examples ('E', Value the
// record id, N its rank).
type ThemePart struct {
	Part  string
	Theme string
	Value string
	N     int
	Sig   ThemeSignal // totals, for Part 'T'
}

// AssembleThemeSignals puts a store's ThemeParts together: themes by rank, companies most insights first
// (then by name), examples by rank.
func AssembleThemeSignals(parts []ThemePart) []ThemeSignal {
	var tops []ThemePart
	companies := map[string][]ThemePart{}
	examples := map[string][]ThemePart{}
	for _, p := range parts {
		switch p.Part {
		case "T":
			tops = append(tops, p)
		case "C":
			companies[p.Theme] = append(companies[p.Theme], p)
		case "E":
			examples[p.Theme] = append(examples[p.Theme], p)
		}
	}
	sort.Slice(tops, func(i, j int) bool { return tops[i].N < tops[j].N })
	out := make([]ThemeSignal, len(tops))
	for i, t := range tops {
		s := t.Sig
		s.Theme = t.Theme
		cs := companies[t.Theme]
		sort.Slice(cs, func(i, j int) bool {
			if cs[i].N != cs[j].N {
				return cs[i].N > cs[j].N
			}
			return cs[i].Value < cs[j].Value
		})
		for _, c := range cs {
			s.Companies = append(s.Companies, c.Value)
		}
		es := examples[t.Theme]
		sort.Slice(es, func(i, j int) bool { return es[i].N < es[j].N })
		for _, e := range es {
			s.Examples = append(s.Examples, ID(e.Value))
		}
		out[i] = s
	}
	return out
}
