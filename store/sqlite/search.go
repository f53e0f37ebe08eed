package sqlite

import (
	"context"
	"strings"
	"unicode/utf8"

	"github.com/feedbridge/feedbridge/core"
)

// searchMode picks how a search runs; only the benchmark changes it, to compare the plans.
type searchMode int

const (
	searchHybrid searchMode = iota // bounded ordered scan, then the trigram index (the default)
	searchFTS                      // always the trigram index
	searchScan                     // always the ordered scan
)

// contains is the exact test of a search: a substring of the folded text. Every plan ends with it, so the
// trigram index only has to narrow the candidates.
const contains = "instr(r.search_text, ?) > 0"

// search returns a page of records whose folded text contains term (already folded by core). Terms under
// three characters have no trigram and always scan.
func (s *Store) search(ctx context.Context, f filter, term string, asc bool, limit int) ([]core.Record, error) {
	if utf8.RuneCountInString(term) < 3 || s.mode == searchScan {
		return s.page(ctx, f, contains, []any{term}, asc, limit)
	}
	fts := "r.seq IN (SELECT rowid FROM records_fts WHERE records_fts MATCH ?) AND " + contains
	return s.page(ctx, f, fts, []any{trigramQuery(term), term}, asc, limit)
}

// trigramQuery is the FTS5 query for rows that hold every trigram of term. The index keeps no positions
// (detail=none, a third of the size), so it cannot match a phrase; the trigrams it needs are the
// non-overlapping ones plus the last, which cover every character, and instr() then confirms the substring.
func trigramQuery(term string) string {
	rs := []rune(term)
	var parts []string
	add := func(i int) {
		parts = append(parts, `"`+strings.ReplaceAll(string(rs[i:i+3]), `"`, `""`)+`"`)
	}
	for i := 0; i+3 <= len(rs); i += 3 {
		add(i)
	}
	if len(rs)%3 != 0 {
		add(len(rs) - 3)
	}
	return strings.Join(parts, " AND ")
}
