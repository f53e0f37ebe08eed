package sqlite

import (
	"context"
	"errors"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/feedbridge/feedbridge/core"
)

// searchMode picks how a search runs; only the benchmark changes it, to compare the plans it measured.
type searchMode int

const (
	searchOrdered searchMode = iota // walk the trigram index in rowid (= creation) order, stop after a page
	searchSorted                    // collect every trigram match, then sort: slow for common terms
	searchScan                      // walk the listing index and test every row: slow for rare terms
)

// contains is the exact test of a search: a substring of the folded text. Every plan ends with it, so the
// trigram index only has to narrow the candidates.
const contains = "instr(r.search_text, ?) > 0"

// gatedSearch is search once the workspace's turn has come: one workspace's searches queue behind each
// other for the search readers, so they cannot take the readers another workspace's searches need.
func (s *Store) gatedSearch(ctx context.Context, ws core.ID, f filter, q core.ListQuery, limit int) ([]core.Record, error) {
	leave, err := s.searches.Enter(ctx, string(ws))
	if err != nil {
		return nil, err
	}
	defer leave()
	return s.search(ctx, ws, f, q, limit)
}

// search returns a page of records whose folded text contains term (already folded by core). Terms under
// three characters have no trigram and scan the listing in order. Records whose full-text entries are
// still queued for the indexer are read from the queue and merged in.
func (s *Store) search(ctx context.Context, ws core.ID, f filter, q core.ListQuery, limit int) ([]core.Record, error) {
	term := q.Search
	switch {
	case utf8.RuneCountInString(term) < 3 || s.mode == searchScan || (q.Order != "" && q.Order != core.OrderCreated):
		// The index walk below yields creation order only; other orders test the listing's rows.
		return s.page(ctx, s.sq, f, contains, []any{term}, q.Asc, limit)
	case s.mode == searchSorted:
		return s.page(ctx, s.sq, f, "(r.seq IN (SELECT rowid FROM records_fts WHERE records_fts MATCH ?) OR r.seq IN (SELECT seq FROM records_fts_pending)) AND "+contains,
			[]any{trigramQuery(term), term}, q.Asc, limit)
	}
	num, err := s.workspaceNum(ctx, s.sq, ws)
	if errors.Is(err, core.ErrNotFound) {
		return []core.Record{}, nil
	}
	if err != nil {
		return nil, err
	}
	order := func(a, b core.Record) int {
		c := a.CreatedAt.Compare(b.CreatedAt)
		if c == 0 {
			c = strings.Compare(string(a.ID), string(b.ID))
		}
		if !q.Asc {
			c = -c
		}
		return c
	}
	lo, hi := seqBounds(num, q)
	if recs, ok, err := s.scanFirst(ctx, f, term, q.Asc, lo, hi, limit); err != nil || ok {
		return recs, err
	}
	// The queue first: an entry that moves into the index meanwhile is then read twice, never missed.
	queued, err := s.queuedMatches(ctx, f, term, q.Asc, lo, hi, limit)
	if err != nil {
		return nil, err
	}
	recs, err := s.indexedMatches(ctx, f, term, q.Asc, lo, hi, limit, order)
	if err != nil || len(queued) == 0 {
		return recs, err
	}
	seen := make(map[core.ID]bool, len(recs))
	for _, r := range recs {
		seen[r.ID] = true
	}
	for _, r := range queued {
		if !seen[r.ID] {
			recs = append(recs, r)
		}
	}
	slices.SortFunc(recs, order)
	return recs[:min(len(recs), limit)], nil
}

// scanMax is how many of a listing's records a search tests by their text, in the listing's order, before
// it turns to the full-text index instead; and how many of the index's matches make a term common enough
// to try that first. A common term among a small set of records (one company's, one tag's) is found
// sooner by testing that set than by walking the term's matches and testing each against the filter; a
// rare term among many records, the other way round.
const scanMax = 2000

// scanFirst is the page of a search found by testing the listing's records in order, when the term is
// common (at least scanMax matches in the index within [lo, hi)) and the page fills or the listing ends
// within scanMax records; ok is false otherwise, and the search is left to the full-text index. It reads
// the text itself, so it needs no merge with the index's queue.
func (s *Store) scanFirst(ctx context.Context, f filter, term string, asc bool, lo, hi int64, limit int) (recs []core.Record, ok bool, err error) {
	budget := max(s.scanMax, limit)
	if lo >= hi || s.scanMax <= 0 {
		return nil, false, nil
	}
	var n int
	if err := s.sq.QueryRowContext(ctx, `SELECT count(*) FROM (SELECT 1 FROM records_fts WHERE records_fts MATCH ?
		AND rowid >= ? AND rowid < ? LIMIT ?)`, trigramQuery(term), lo, hi, s.scanMax).Scan(&n); err != nil || n < s.scanMax {
		return nil, false, err
	}
	// The text is read only for the records that pass the filter; the rows stop being read once the page is full.
	rows, err := s.sq.QueryContext(ctx, `SELECT r.seq, r.id, `+contains+` FROM records r WHERE `+strings.Join(f.where, " AND ")+
		f.orderBy(asc)+` LIMIT ?`, append(append([]any{term}, f.args...), budget)...)
	if err != nil {
		return nil, false, err
	}
	defer rows.Close()
	var seqs []any
	rank := map[core.ID]int{} // the records' ids in the listing's order
	tested := 0
	for len(seqs) < limit && rows.Next() {
		var seq int64
		var id core.ID
		var hit bool
		if err := rows.Scan(&seq, &id, &hit); err != nil {
			return nil, false, err
		}
		tested++
		if hit {
			rank[id] = len(seqs)
			seqs = append(seqs, seq)
		}
	}
	if err := rows.Close(); err != nil {
		return nil, false, err
	}
	if len(seqs) < limit && tested == budget {
		return nil, false, nil // neither a full page nor the listing's end: the term is rare among these records
	}
	if len(seqs) == 0 {
		return []core.Record{}, true, nil
	}
	// Read by their seqs and put in order here: with an ORDER BY the planner may walk the listing's index
	// in order to find these few records.
	rows, err = s.sq.QueryContext(ctx, recordSelect+` WHERE r.seq IN (`+strings.TrimSuffix(strings.Repeat("?, ", len(seqs)), ", ")+`)`, seqs...)
	if err != nil {
		return nil, false, err
	}
	recs, err = collect(rows, scanRecord)
	if err != nil {
		return nil, false, err
	}
	slices.SortFunc(recs, func(a, b core.Record) int { return rank[a.ID] - rank[b.ID] })
	return recs, true, nil
}

// indexedMatches is the first limit matches, in order, among the records in the full-text index.
func (s *Store) indexedMatches(ctx context.Context, f filter, term string, asc bool, lo, hi int64, limit int,
	order func(a, b core.Record) int) ([]core.Record, error) {
	recs, err := s.walk(ctx, f, term, asc, lo, hi, limit)
	if err != nil {
		return nil, err
	}
	if len(recs) < limit {
		// Every match is here; rowid order is creation order only between blocks.
		slices.SortFunc(recs, order)
		return recs, nil
	}
	// The walk covered every block before the last record's block completely; that block's share of the
	// page comes, in exact order, from the listing index over the block's hour.
	edge := block(recs[len(recs)-1].CreatedAt)
	recs = slices.DeleteFunc(recs, func(r core.Record) bool { return block(r.CreatedAt) == edge })
	slices.SortFunc(recs, order)
	from, to := blockTimes(edge)
	inBlock := filter{where: append(slices.Clone(f.where), "r.created_at >= ?", "r.created_at < ?"), args: append(slices.Clone(f.args), from, to)}
	rest, err := s.page(ctx, s.sq, inBlock, contains, []any{term}, asc, limit-len(recs))
	if err != nil {
		return nil, err
	}
	return append(recs, rest...), nil
}

// queuedMatches is the first limit matches, in no particular order, among the records whose full-text
// entries wait in the indexer's queue: at most indexBatch of them, and usually none, since the indexer
// drains it a moment after each write. The page is chosen on the sort columns alone, and only its records
// are read whole: sorting every match with its text cost seconds with 50,000 queued.
func (s *Store) queuedMatches(ctx context.Context, f filter, term string, asc bool, lo, hi int64, limit int) ([]core.Record, error) {
	dir := "DESC"
	if asc {
		dir = "ASC"
	}
	rows, err := s.sq.QueryContext(ctx, recordSelect+` WHERE r.seq IN (SELECT q.seq FROM records_fts_pending q
		CROSS JOIN records r ON r.seq = q.seq WHERE q.seq >= ? AND q.seq < ? AND `+strings.Join(f.where, " AND ")+
		` AND `+contains+` ORDER BY r.created_at `+dir+`, r.id `+dir+` LIMIT ?)`,
		append(append([]any{lo, hi}, f.args...), term, limit)...)
	if err != nil {
		return nil, err
	}
	return collect(rows, scanRecord)
}

// seqBounds is the rowid range [lo, hi) of a search: the workspace's seqs, narrowed by the creation
// bounds and the cursor (later times have lower seqs); the exact conditions stay in the filter.
func seqBounds(num int64, q core.ListQuery) (lo, hi int64) {
	lo, _ = seqRange(num, blockMax)
	_, hi = seqRange(num, -blockMax-1)
	if !q.From.IsZero() {
		_, h := seqRange(num, block(q.From))
		hi = min(hi, h)
	}
	if !q.To.IsZero() {
		l, _ := seqRange(num, block(q.To))
		lo = max(lo, l)
	}
	if c := q.After; c != nil {
		l, h := seqRange(num, block(c.CreatedAt))
		if q.Asc {
			hi = min(hi, h)
		} else {
			lo = max(lo, l)
		}
	}
	return lo, hi
}

// walk reads matches in creation order within the rowid range [lo, hi), driving the query from the
// full-text index so that SQLite stops after limit rows that pass the filter (limit 0: all of them).
func (s *Store) walk(ctx context.Context, f filter, term string, asc bool, lo, hi int64, limit int) ([]core.Record, error) {
	if lo >= hi {
		return []core.Record{}, nil
	}
	dir := "ASC" // newest first
	if asc {
		dir = "DESC"
	}
	query := `SELECT ` + recordFields + ` FROM records_fts CROSS JOIN records r ON r.seq = records_fts.rowid ` + recordJoins +
		` WHERE records_fts MATCH ? AND records_fts.rowid >= ? AND records_fts.rowid < ? AND ` + strings.Join(f.where, " AND ") +
		` AND ` + contains + ` ORDER BY records_fts.rowid ` + dir
	args := append(append([]any{trigramQuery(term), lo, hi}, f.args...), term)
	if limit > 0 {
		query += ` LIMIT ?`
		args = append(args, limit)
	}
	rows, err := s.sq.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	return collect(rows, scanRecord)
}

// maxTrigrams bounds the terms of one full-text query. Each term is a posting list that FTS5 reads and
// intersects, so a long search term would otherwise cost a list per three characters; a handful of
// distinct trigrams narrows the candidates about as well, and instr() confirms every one of them.
const maxTrigrams = 6

// trigramQuery is the FTS5 query for rows that hold the chosen trigrams of term. The index keeps no
// positions (detail=none, a third of the size), so it cannot match a phrase: instr() confirms the
// substring. Of a short term the query takes the non-overlapping trigrams plus the last, which cover every
// character; repeats are dropped, and past maxTrigrams only the likeliest to be rare are kept.
func trigramQuery(term string) string {
	rs := []rune(term)
	var grams []string
	seen := map[string]bool{}
	add := func(i int) {
		g := string(rs[i : i+3])
		if !seen[g] {
			seen[g] = true
			grams = append(grams, g)
		}
	}
	for i := 0; i+3 <= len(rs); i += 3 {
		add(i)
	}
	if len(rs)%3 != 0 {
		add(len(rs) - 3)
	}
	if len(grams) > maxTrigrams {
		// Overlapping trigrams too, so that the choice is among every one the term holds.
		for i := 0; i+3 <= len(rs); i++ {
			add(i)
		}
		slices.SortStableFunc(grams, func(a, b string) int { return rarity(b) - rarity(a) })
		grams = grams[:maxTrigrams]
	}
	parts := make([]string, len(grams))
	for i, g := range grams {
		parts[i] = `"` + strings.ReplaceAll(g, `"`, `""`) + `"`
	}
	return strings.Join(parts, " AND ")
}

// rarity guesses how few records hold a trigram without asking the index (which would read the very
// posting lists the query is to avoid): letters and digits beat spaces and punctuation, three different
// characters beat repeats, and characters outside ASCII, uncommon in most text, count extra.
func rarity(g string) int {
	score := 0
	var prev []rune
	for _, r := range g {
		switch {
		case r > unicode.MaxASCII && (unicode.IsLetter(r) || unicode.IsDigit(r)):
			score += 3
		case unicode.IsDigit(r):
			score += 3
		case unicode.IsLetter(r):
			score += 2
		}
		if !slices.Contains(prev, r) {
			score += 2
		}
		prev = append(prev, r)
	}
	return score
}
