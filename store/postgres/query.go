package postgres

import (
	"context"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/jackc/pgx/v5"

	"github.com/feedbridge/feedbridge/core"
	"github.com/feedbridge/feedbridge/store/internal/fairshare"
)

// recordSelect reads records with their labels resolved: assignee name, product label, tag labels in the
// record's tag order and the company name. It wraps a row source "r" that selects from records.
const recordSelect = `
SELECT r.id, r.workspace_id, r.type, r.title, r.description_html, r.description, r.status,
       r.assignee_id, coalesce(u.name, ''), r.product_id, coalesce(p.label, ''), r.tag_ids,
       ARRAY(SELECT t.label FROM unnest(r.tag_ids) WITH ORDINALITY AS x(id, n)
             JOIN lookups t ON t.workspace_id = r.workspace_id AND t.id = x.id ORDER BY x.n),
       r.source, r.customer_email, coalesce(c.name, ''), r.company_id, r.contact_id, r.reporter,
       r.release, r.timeframe, r.created_at, r.updated_at,
       coalesce(ct.name, ''), coalesce(r.importance, 0), r.merged_into, r.feedback_count, r.version, r.created_by
FROM %s r
LEFT JOIN users u ON u.workspace_id = r.workspace_id AND u.id = r.assignee_id
LEFT JOIN lookups p ON p.workspace_id = r.workspace_id AND p.id = r.product_id AND p.kind = 'product'
LEFT JOIN companies c ON c.workspace_id = r.workspace_id AND c.id = r.company_id
LEFT JOIN contacts ct ON ct.workspace_id = r.workspace_id AND ct.id = r.contact_id AND r.contact_id <> ''`

func selectFrom(source string) string { return strings.Replace(recordSelect, "%s", source, 1) }

func scanRecord(row pgx.Row) (core.Record, error) {
	var (
		r          core.Record
		tagIDs     []string
		createdBy  string
		importance int32
		fbCount    int32
		// The id and type columns are scanned as plain strings: pgx plans a scan into *string directly,
		// while a named string type (core.ID, core.RecordType) goes through a reflective search on every
		// row of every query.
		id, ws, typ, assignee, product, company, contact, merged string
	)
	err := row.Scan(&id, &ws, &typ, &r.Title, &r.DescriptionHTML, &r.Description, &r.Status,
		&assignee, &r.Assignee, &product, &r.Product, &tagIDs, &r.Tags,
		&r.Source, &r.CustomerEmail, &r.Customer, &company, &contact, &r.Reporter,
		&r.Release, &r.Timeframe, &r.CreatedAt, &r.UpdatedAt,
		&r.CustomerName, &importance, &merged, &fbCount, &r.Version, &createdBy)
	r.ID, r.Workspace, r.Type, r.AssigneeID, r.ProductID = core.ID(id), core.ID(ws), core.RecordType(typ), core.ID(assignee), core.ID(product)
	r.CompanyID, r.ContactID, r.MergedInto = core.ID(company), core.ID(contact), core.ID(merged)
	r.Importance, r.FeedbackCount = int(importance), int(fbCount)
	r.CreatedBy = core.ParseActor(createdBy)
	r.Links = []core.ID{}
	r.TagIDs = toIDs(tagIDs)
	if r.Tags == nil {
		r.Tags = []string{}
	}
	r.CreatedAt, r.UpdatedAt = ms(r.CreatedAt), ms(r.UpdatedAt)
	return r, err
}

// toIDs converts an id array; an empty one is an empty, non-nil slice, as in every record the store returns.
func toIDs(ss []string) []core.ID {
	out := make([]core.ID, len(ss))
	for i, s := range ss {
		out[i] = core.ID(s)
	}
	return out
}

func fromIDs(ids []core.ID) []string {
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = string(id)
	}
	return out
}

// Record returns one record of the workspace; another workspace's id is core.ErrNotFound.
func (s *Store) Record(ctx context.Context, ws core.ID, id core.ID) (core.Record, error) {
	r, err := s.record(ctx, s.pool, ws, id)
	if err == nil {
		recs := []core.Record{r}
		err = loadMoves(ctx, s.pool, ws, recs)
		r = recs[0]
	}
	return r, fail("record", err)
}

type querier interface {
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
}

// RecordsByID reads the records of ws among ids in one query.
func (s *Store) RecordsByID(ctx context.Context, ws core.ID, ids []core.ID) ([]core.Record, error) {
	list := make([]string, len(ids))
	for i, id := range ids {
		list[i] = string(id)
	}
	rows, err := s.pool.Query(ctx, selectFrom("records")+` WHERE r.workspace_id = $1 AND r.id = ANY ($2::text[])`, ws, list)
	if err != nil {
		return nil, fail("records by id", err)
	}
	recs, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (core.Record, error) { return scanRecord(r) })
	if err != nil {
		return nil, fail("records by id", err)
	}
	return recs, nil
}

func (s *Store) record(ctx context.Context, q querier, ws, id core.ID) (core.Record, error) {
	return scanRecord(q.QueryRow(ctx, selectFrom("records")+` WHERE r.workspace_id = $1 AND r.id = $2`, ws, id))
}

// Records returns one page of a listing in (createdAt, id) order after the cursor.
//
// The listing runs as an unnamed statement (pgx's exec mode) so that PostgreSQL plans every search with
// its actual pattern: a cached generic plan cannot tell a common word, best served by walking the listing
// index newest first, from a rare one, best served by the trigram index. A pattern without three letters
// or digits in a row has no trigram, and pg_trgm would read its whole index for it; such a search runs
// with bitmap scans off, so that the choice is between the listing index (common text) and a sequential
// scan (rare text). A listing that walks a tag's entries (tagWalk) runs with parallel workers off.
//
// Every listing runs under the store's time limit (pgx cancels the statement on the server when it ends),
// and a workspace runs one search at a time, so one tenant's searches queue behind each other instead of
// taking the pool's connections from everyone else.
func (s *Store) Records(ctx context.Context, ws core.ID, q core.ListQuery) ([]core.Record, error) {
	ctx, cancel := fairshare.Cap(ctx, readLimit)
	defer cancel()
	if q.Search != "" {
		leave, err := s.searches.Enter(ctx, string(ws))
		if err != nil {
			return nil, fail("records", fairshare.Err(ctx, err))
		}
		defer leave()
	}
	sql, args := listSQL(ws, q)
	args = append([]any{pgx.QueryExecModeExec}, args...)
	var out []core.Record
	read := func(db querier) error {
		rows, err := db.Query(ctx, sql, args...)
		if err != nil {
			return err
		}
		out, err = pgx.CollectRows(rows, func(r pgx.CollectableRow) (core.Record, error) { return scanRecord(r) })
		return err
	}
	// inTx reads under a planner setting that holds for this statement only.
	inTx := func(set string) error {
		err := s.inTx(ctx, "records", func(tx pgx.Tx) error {
			if _, err := tx.Exec(ctx, set); err != nil {
				return err
			}
			return fairshare.Err(ctx, read(tx))
		})
		if err == nil {
			err = fail("records", loadMoves(ctx, s.pool, ws, out))
		}
		return err
	}
	if tagWalk(q) {
		// Serial: a parallel walk of the tag's entries starts workers to read one page, which on a busy
		// server costs more than the walk it shares.
		err := inTx(`SET LOCAL max_parallel_workers_per_gather = 0`)
		return out, err
	}
	if q.Search == "" || hasTrigram(q.Search) {
		err := read(s.pool)
		if err == nil {
			err = loadMoves(ctx, s.pool, ws, out)
		}
		return out, fail("records", fairshare.Err(ctx, err))
	}
	err := inTx(`SET LOCAL enable_bitmapscan = off`)
	return out, err
}

// hasTrigram reports whether s holds three letters or digits in a row, the least pg_trgm needs to look a
// LIKE pattern up in its index.
func hasTrigram(s string) bool {
	run := 0
	for _, r := range s {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			if run++; run == 3 {
				return true
			}
		} else {
			run = 0
		}
	}
	return false
}

// listSQL builds the listing: the filtered, ordered, limited page of records first (so that the planner
// chooses between the listing index and the trigram index on the filters alone), then the label joins.
func listSQL(ws core.ID, q core.ListQuery) (string, []any) {
	walk := tagWalk(q)
	// created is the creation date the window, the cursor and the order read: the tag entry's when the
	// listing walks them, so that its index serves all three.
	from, created := "records", "created_at"
	if walk {
		from, created = "record_tags JOIN records USING (workspace_id, type, id)", "record_tags.created_at"
	}
	args := []any{ws}
	where := []string{"workspace_id = $1"}
	add := func(cond string, v any) {
		args = append(args, v)
		where = append(where, strings.ReplaceAll(cond, "?", "$"+strconv.Itoa(len(args))))
	}
	if q.Type != "" {
		add("type = ?", q.Type)
	}
	if q.Search != "" {
		if w := likeWindow(q.Search); w != q.Search {
			// pg_trgm looks up every distinct trigram of a LIKE pattern: a 1,000-character term costs
			// hundreds of index probes. The index narrows on a part of the term; strpos confirms all of it.
			add("search_text LIKE ?", "%"+escapeLike(w)+"%")
			add("strpos(search_text, ?) > 0", q.Search)
		} else {
			add("search_text LIKE ?", "%"+escapeLike(q.Search)+"%")
		}
	}
	if !q.From.IsZero() {
		add(created+" >= ?", q.From)
	}
	if !q.To.IsZero() {
		add(created+" <= ?", q.To)
	}
	if !q.UpdatedSince.IsZero() {
		add("updated_at >= ?", q.UpdatedSince)
	}
	if q.ProductID != "" {
		add("product_id = ?", q.ProductID)
	}
	if q.UserID != "" {
		add("assignee_id = ?", q.UserID)
	}
	switch {
	case walk:
		// The walk's tag is a condition on its entries; any other is tested on the record's array.
		add("record_tags.tag_id = ?", q.TagIDs[0])
		if len(q.TagIDs) > 1 {
			add("tag_ids @> ?::text[]", fromIDs(q.TagIDs[1:]))
		}
	case len(q.TagIDs) > 0:
		add("tag_ids @> ?::text[]", fromIDs(q.TagIDs))
	}
	moveFilters(q, add, func(cond string) { where = append(where, cond) })
	if q.Order == core.OrderDemand {
		// Spelled out so that the planner sees the demand index's condition in the query.
		where = append(where, "type IN ('Idea', 'Feature')")
	}
	dir, cmp := "DESC", "<"
	if q.Asc {
		dir, cmp = "ASC", ">"
	}
	cols := []string{created, "id"}
	switch q.Order {
	case core.OrderUpdated:
		cols = []string{"updated_at", "id"}
	case core.OrderDemand:
		cols = []string{"feedback_count", "created_at", "id"}
	}
	if c := q.After; c != nil {
		vals := []any{ms(c.CreatedAt), c.ID}
		switch q.Order {
		case core.OrderUpdated:
			vals = []any{ms(time.UnixMilli(c.Key)), c.ID}
		case core.OrderDemand:
			vals = []any{int32(c.Key), ms(c.CreatedAt), c.ID}
		}
		marks := make([]string, len(vals))
		for i, v := range vals {
			args = append(args, v)
			marks[i] = "$" + strconv.Itoa(len(args))
		}
		where = append(where, "("+strings.Join(cols, ", ")+") "+cmp+" ("+strings.Join(marks, ", ")+")")
	}
	limit := q.Limit
	if limit <= 0 {
		limit = core.DefaultPageSize
	}
	order, outer := " ORDER BY ", " ORDER BY "
	for i, c := range cols {
		if i > 0 {
			order, outer = order+", ", outer+", "
		}
		order += c + " " + dir
		outer += "r." + c[strings.IndexByte(c, '.')+1:] + " " + dir
	}
	page := "(SELECT records.* FROM " + from + " WHERE " + strings.Join(where, " AND ") + order + " LIMIT " + strconv.Itoa(limit) + ")"
	return selectFrom(page) + outer, args
}

// tagWalk reports whether a listing walks its first tag's entries in record_tags, newest first (or oldest),
// instead of the records' own index testing every record's tags: for a listing by tag in creation order
// of one type, unless it also filters by something with an index of its own (a company, a customer, a
// link's target, a search), which can narrow the listing further than the tag. The choice is made here
// and not by the planner, which cannot tell that a tag entry and its record share their date and so
// takes a join of the two to be far rarer than it is.
func tagWalk(q core.ListQuery) bool {
	return len(q.TagIDs) > 0 && q.Type != "" && (q.Order == "" || q.Order == core.OrderCreated) &&
		q.CompanyID == "" && q.CustomerEmailKey == "" && q.LinkedTo == "" && q.Search == ""
}

// moveFilters adds the conditions of statuses, customers and links; without a status filter Merged
// records are left out.
func moveFilters(q core.ListQuery, add func(cond string, v any), plain func(cond string)) {
	switch len(q.Statuses) {
	case 0:
		add("status <> ?", core.StatusMerged)
	case 1:
		// An equality, not "= ANY" of one: PostgreSQL reads an index in order only when no column before
		// the order's holds a list, so a status list would leave the demand board's columns to walk their
		// type's every record in demand order, filtering by status.
		add("status = ?", q.Statuses[0])
	default:
		add("status = ANY (?::text[])", q.Statuses)
	}
	if q.CompanyID != "" {
		add("company_id = ?", q.CompanyID)
	}
	if q.Source != "" {
		add("source = ?", q.Source)
	}
	if q.Theme != "" {
		// Tested per row in listing order: one primary-key probe of the theme roll-up's record rows.
		add("EXISTS (SELECT 1 FROM record_themes x WHERE x.workspace_id = records.workspace_id AND x.record_id = records.id AND x.theme = ?)", q.Theme)
	}
	if q.CustomerEmailKey != "" {
		add("lower(customer_email) = ?", q.CustomerEmailKey)
	}
	if q.Linked != nil {
		cond := "EXISTS (SELECT 1 FROM record_links l WHERE l.workspace_id = records.workspace_id AND l.feedback_id = records.id)"
		if !*q.Linked {
			cond = "NOT " + cond
		}
		plain(cond)
	}
	if q.LinkedTo != "" {
		// Not correlated with the outer row (the workspace is $1 on both sides), so that the planner reads
		// the target's links once, by their index, instead of probing them for every record it walks.
		add("id IN (SELECT feedback_id FROM record_links l WHERE l.workspace_id = $1 AND l.target_id = ?)", q.LinkedTo)
	}
}

// windowRunes is the longest search term whose trigrams all go to the index.
const windowRunes = 16

// likeWindow is the part of term the trigram index looks up: term itself when short, otherwise the
// windowRunes-long stretch with the most distinct letters and digits (the likeliest to be rare).
func likeWindow(term string) string {
	rs := []rune(term)
	if len(rs) <= windowRunes {
		return term
	}
	best, bestScore := 0, -1
	for i := 0; i+windowRunes <= len(rs); i++ {
		seen := map[rune]bool{}
		for _, r := range rs[i : i+windowRunes] {
			if unicode.IsLetter(r) || unicode.IsDigit(r) {
				seen[r] = true
			}
		}
		if len(seen) > bestScore {
			best, bestScore = i, len(seen)
		}
	}
	return string(rs[best : best+windowRunes])
}

// escapeLike makes every character of a search literal for LIKE (whose escape character is '\').
func escapeLike(s string) string {
	return strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(s)
}
