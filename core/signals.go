package core

import (
	"sort"
	"time"
)

// MaxSignalExamples is how many record ids a theme signal names as examples.
const MaxSignalExamples = 3

// MaxSignalCompanies is how many company names a theme signal lists; CompaniesTotal counts them all.
const MaxSignalCompanies = 5

// dayMS is one UTC day in milliseconds.
const dayMS = 24 * 60 * 60 * 1000

// EpochDay is the UTC day of t as whole days since the Unix epoch: the day a store's theme roll-up files
// a record's insights under.
func EpochDay(t time.Time) int64 {
	ms := t.UnixMilli()
	d := ms / dayMS
	if ms < 0 && ms%dayMS != 0 {
		d--
	}
	return d
}

// DayStart is the first instant of an epoch day.
func DayStart(day int64) time.Time { return time.UnixMilli(day * dayMS).UTC() }

// SignalSpans are the lengths, in days, of the aligned spans a store's theme roll-up sums besides single
// days, longest first: a span of length s starts on a day that is a multiple of s.
var SignalSpans = []int64{64, 16, 4}

// WindowSpans covers the days [from, to] with the fewest aligned spans of SignalSpans and single days
// (length 1), in order: a window reads its edges day by day and its middle span by span.
func WindowSpans(from, to int64) (lengths, firsts []int64) {
	for d := from; d <= to; {
		s := int64(1)
		for _, l := range SignalSpans {
			if ((d%l)+l)%l == 0 && d+l-1 <= to {
				s = l
				break
			}
		}
		lengths, firsts = append(lengths, s), append(firsts, d)
		d += s
	}
	return lengths, firsts
}

// SignalQuery asks the store for the themes of the insights of records created in [From, To], with their
// counts in [PrevFrom, PrevTo] for the trend; Limit themes at most, most frequent first. Stores count whole
// UTC days: every bound is taken as the whole day it falls in (callers round windows out to days).
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
	Companies []string       // up to MaxSignalCompanies company names, most insights first, then by name
	// CompaniesTotal is how many distinct company names the theme's insights have.
	CompaniesTotal int
	Examples       []ID // up to MaxSignalExamples records, newest record first (ties: larger id)
	Previous       int  // insights naming the theme in the previous window
}

// ThemePart is one row of a store's single-query theme aggregation: a theme's totals (Part 'T', N its
// rank), one of its companies ('C', Value the name, N its insights), its count of company names when the
// store ranks them itself and sends only the first ones ('K', N the count) or one of its examples ('E',
// Value the record id, N its rank).
type ThemePart struct {
	Part  string
	Theme string
	Value string
	N     int
	Sig   ThemeSignal // totals, for Part 'T'
}

// AssembleThemeSignals puts a store's ThemeParts together: themes by rank; companies summed by name
// (two companies may share one), most insights first (then by name), MaxSignalCompanies of them with the
// count of all (the 'K' part's, when there is one); examples by rank.
func AssembleThemeSignals(parts []ThemePart) []ThemeSignal {
	var tops []ThemePart
	companies := map[string]map[string]int{}
	examples := map[string][]ThemePart{}
	totals := map[string]int{}
	for _, p := range parts {
		switch p.Part {
		case "T":
			tops = append(tops, p)
		case "C":
			if companies[p.Theme] == nil {
				companies[p.Theme] = map[string]int{}
			}
			companies[p.Theme][p.Value] += p.N
		case "E":
			examples[p.Theme] = append(examples[p.Theme], p)
		case "K":
			totals[p.Theme] = p.N
		}
	}
	sort.Slice(tops, func(i, j int) bool { return tops[i].N < tops[j].N })
	out := make([]ThemeSignal, len(tops))
	for i, t := range tops {
		s := t.Sig
		s.Theme = t.Theme
		s.Companies, s.CompaniesTotal = TopCompanies(companies[t.Theme])
		if n, ok := totals[t.Theme]; ok {
			s.CompaniesTotal = n
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

// TopCompanies ranks company names by their insights (then by name) and keeps MaxSignalCompanies of them;
// total is how many there are.
func TopCompanies(c map[string]int) (top []string, total int) {
	out := make([]string, 0, len(c))
	for name := range c {
		out = append(out, name)
	}
	sort.Slice(out, func(i, j int) bool {
		if c[out[i]] != c[out[j]] {
			return c[out[i]] > c[out[j]]
		}
		return out[i] < out[j]
	})
	if len(out) > MaxSignalCompanies {
		out = out[:MaxSignalCompanies]
	}
	return out, len(c)
}

// CompanyTally sums each of a store's top themes' company rows per company id, for CompanyParts. Themes
// are numbered as in the list later given to CompanyParts.
type CompanyTally struct {
	index map[string]int // company id -> its position in IDs
	IDs   []string       // the distinct company ids added, for the name look-up
	sums  []map[int]int  // per theme: company position -> insights
}

// NewCompanyTally makes a tally for themes themes.
func NewCompanyTally(themes int) *CompanyTally {
	t := &CompanyTally{index: map[string]int{}, sums: make([]map[int]int, themes)}
	for i := range t.sums {
		t.sums[i] = map[int]int{}
	}
	return t
}

// Add counts n insights of company id under theme number theme. A blank id (no company) is left out, as
// a join to the companies would leave it; id may be a driver's reused buffer.
func (t *CompanyTally) Add(theme int, id []byte, n int) {
	if len(id) == 0 {
		return
	}
	k, ok := t.index[string(id)]
	if !ok {
		k = len(t.IDs)
		t.IDs = append(t.IDs, string(id))
		t.index[t.IDs[k]] = k
	}
	t.sums[theme][k] += n
}

// CompanyParts sums each theme's companies by name (two companies may share one; an id missing from
// names is left out), ranks them most insights first, then by name, and returns the first
// MaxSignalCompanies of each theme ('C') and their count ('K'), as AssembleThemeSignals takes them.
func (t *CompanyTally) CompanyParts(themes []string, names map[string]string) []ThemePart {
	nameOf := make([]int, len(t.IDs)) // company position -> name position, -1 when it has none
	index := map[string]int{}
	var list []string
	for k, id := range t.IDs {
		name, ok := names[id]
		if !ok {
			nameOf[k] = -1
			continue
		}
		n, ok := index[name]
		if !ok {
			n = len(list)
			list = append(list, name)
			index[name] = n
		}
		nameOf[k] = n
	}
	type named struct{ name, n int }
	var out []ThemePart
	var ranked []named
	byName := map[int]int{}
	for i, sums := range t.sums {
		clear(byName)
		for k, n := range sums {
			if nm := nameOf[k]; nm >= 0 {
				byName[nm] += n
			}
		}
		if len(byName) == 0 {
			continue
		}
		ranked = ranked[:0]
		for nm, n := range byName {
			ranked = append(ranked, named{nm, n})
		}
		sort.Slice(ranked, func(a, b int) bool {
			if ranked[a].n != ranked[b].n {
				return ranked[a].n > ranked[b].n
			}
			return list[ranked[a].name] < list[ranked[b].name]
		})
		for _, r := range ranked[:min(len(ranked), MaxSignalCompanies)] {
			out = append(out, ThemePart{Part: "C", Theme: themes[i], Value: list[r.name], N: r.n})
		}
		out = append(out, ThemePart{Part: "K", Theme: themes[i], N: len(ranked)})
	}
	return out
}
