package sqlite

import (
	"context"
	"strings"

	"github.com/feedbridge/feedbridge/core"
	"github.com/feedbridge/feedbridge/store/internal/fairshare"
)

// Records returns one keyset page of the workspace's records in (createdAt, id) order. Every listing runs
// under the store's time limit; searches run on their own readers, one at a time per workspace (see Open).
func (s *Store) Records(ctx context.Context, ws core.ID, q core.ListQuery) ([]core.Record, error) {
	ctx, cancel := fairshare.Cap(ctx, s.readLimit)
	defer cancel()
	drive, err := s.pickDrive(ctx, q)
	if err != nil {
		return nil, s.fail("records", fairshare.Err(ctx, err))
	}
	f := listFilter(ws, q, drive)
	limit := q.Limit
	if limit <= 0 {
		limit = core.DefaultPageSize
	}
	var recs []core.Record
	if q.Search == "" {
		recs, err = s.page(ctx, s.rq, f, "", nil, q.Asc, limit)
	} else {
		recs, err = s.gatedSearch(ctx, ws, f, q, limit)
	}
	if err == nil {
		err = loadTags(ctx, s.rq, recs)
	}
	if err == nil {
		err = loadMoves(ctx, s.rq, recs)
	}
	if err == nil {
		// A read that outran its deadline without being interrupted (the interrupt came too late) ends as
		// an interrupted one would: the caller has stopped waiting for it.
		err = fairshare.Ended(ctx)
	}
	if err != nil {
		return nil, s.fail("records", fairshare.Err(ctx, err))
	}
	return recs, nil
}

// filter is the WHERE clause of a listing without its search term.
type filter struct {
	where  []string
	args   []any
	order  string // core.OrderCreated, OrderUpdated or OrderDemand
	window bool   // the listing walks a window of creation dates (see windowKeys)
}

// driveMax is the most records a tag or a linked-to Idea may have for a listing to start from its index
// entries: below it, reading and sorting those records costs less than walking the listing's order until a
// page of them turns up; above it, the walk finds a page sooner.
const driveMax = 2000

// lookupMax is the most records of a drive's tags that a listing reads by id and sorts, rather than walking
// its order and testing each record against their ids. Reading one by id costs about as much as walking
// a few dozen index entries, so a few hundred are read in a few ms whatever the workspace's size, while
// the walk for so rare a set crosses tens of thousands of entries of a large workspace. The planner's
// statistics (a sample) cannot tell the two apart: it walks the order unless told otherwise.
const lookupMax = 600

// drive names the set a listing starts from: the records holding all of its tags (tagged, their ids; byID
// when they are few enough to read one by one, see lookupMax), or (linkedTo) the records linked to the Idea
// it filters by; neither when every such set is common.
type drive struct {
	tagged   []any
	byID     bool
	linkedTo bool
}

// tagsIn is the subquery of the records that hold all of n tags, read from the tags' index alone.
func tagsIn(n int) string {
	return strings.TrimSuffix(strings.Repeat(`SELECT record_id FROM record_tags WHERE tag_id = ? INTERSECT `, n), ` INTERSECT `)
}

// pickDrive picks the smaller of the listing's tags' common records and its linked-to Idea's records
// when it has at most driveMax records. The tags' common records are read once, from the index ranges of
// the tags (one of them at most driveMax+1 entries long), and the listing takes their ids rather than
// intersecting the ranges again; the planner's statistics cannot tell a rare tag from a common one, and
// the wrong choice costs a sort of every record of a common one.
func (s *Store) pickDrive(ctx context.Context, q core.ListQuery) (drive, error) {
	var d drive
	least := s.driveMax + 1
	if len(q.TagIDs) > 0 {
		args := make([]any, len(q.TagIDs))
		for i, t := range q.TagIDs {
			args[i] = t
		}
		rows, err := s.rq.QueryContext(ctx, tagsIn(len(args))+` LIMIT ?`, append(args, s.driveMax+1)...)
		if err != nil {
			return drive{}, err
		}
		ids, err := collect(rows, func(sc scanner) (any, error) {
			var id string
			err := sc.Scan(&id)
			return id, err
		})
		if err != nil {
			return drive{}, err
		}
		if len(ids) < least {
			d.tagged, d.byID, least = ids, len(ids) <= s.lookupMax, len(ids)
		}
	}
	if q.LinkedTo != "" {
		var n int
		if err := s.rq.QueryRowContext(ctx, `SELECT count(*) FROM (SELECT 1 FROM record_links WHERE target_id = ? LIMIT ?)`,
			q.LinkedTo, s.driveMax+1).Scan(&n); err != nil {
			return drive{}, err
		}
		if n < least {
			d = drive{linkedTo: true}
		}
	}
	return d, nil
}

// listFilter builds the listing's conditions; d is the set the listing starts from (pickDrive), the other
// sets being tested record by record.
func listFilter(ws core.ID, q core.ListQuery, d drive) filter {
	inWorkspace := "r.workspace_id = ?"
	if d.tagged != nil && d.byID {
		// The unary plus keeps the workspace's indexes out of the plan, so it reads the records by id.
		inWorkspace = "+" + inWorkspace
	}
	f := filter{where: []string{inWorkspace}, args: []any{ws}}
	add := func(cond string, args ...any) {
		f.where = append(f.where, cond)
		f.args = append(f.args, args...)
	}
	if q.Type != "" {
		add("r.type = ?", q.Type)
	}
	if !q.From.IsZero() {
		add("r.created_at >= ?", ms(q.From))
	}
	if !q.To.IsZero() {
		add("r.created_at <= ?", ms(q.To))
	}
	// A listing that reads its records by id sorts them whatever their order; any other walks the window.
	f.window = (!q.From.IsZero() || !q.To.IsZero()) && (d.tagged == nil || !d.byID)
	if !q.UpdatedSince.IsZero() {
		add("r.updated_at >= ?", ms(q.UpdatedSince))
	}
	if q.ProductID != "" {
		add("r.product_id = ?", q.ProductID)
	}
	if q.UserID != "" {
		add("r.assignee_id = ?", q.UserID)
	}
	if d.tagged != nil {
		// An IN list lets the planner start from these records instead of testing every row.
		add("r.id IN ("+strings.TrimSuffix(strings.Repeat("?, ", len(d.tagged)), ", ")+")", d.tagged...)
	} else {
		for _, t := range q.TagIDs {
			// A test per record by the tag's primary key: the planner walks the listing's order instead.
			add("EXISTS (SELECT 1 FROM record_tags t WHERE t.record_id = r.id AND t.tag_id = ?)", t)
		}
	}
	moveFilters(q, d.linkedTo, add)
	if q.Order == core.OrderDemand {
		// Spelled out so that the planner sees the demand index's condition in the query.
		add("r.type IN ('Idea', 'Feature')")
	}
	f.order = q.Order
	if c := q.After; c != nil {
		op := "<"
		if q.Asc {
			op = ">"
		}
		switch q.Order {
		case core.OrderUpdated:
			add("(r.updated_at, r.id) "+op+" (?, ?)", c.Key, c.ID)
		case core.OrderDemand:
			add("(r.feedback_count, r.created_at, r.id) "+op+" (?, ?, ?)", c.Key, ms(c.CreatedAt), c.ID)
		default:
			add("(r.created_at, r.id) "+op+" (?, ?)", ms(c.CreatedAt), c.ID)
		}
	}
	return f
}

// moveFilters adds the conditions of statuses, customers and links; without a status filter Merged
// records are left out. linkDrives makes the linked-to Idea's records the set the listing starts from (pickDrive).
func moveFilters(q core.ListQuery, linkDrives bool, add func(cond string, args ...any)) {
	if len(q.Statuses) == 0 {
		add("r.status <> ?", core.StatusMerged)
	} else {
		args := make([]any, len(q.Statuses))
		for i, st := range q.Statuses {
			args[i] = st
		}
		add("r.status IN ("+strings.TrimSuffix(strings.Repeat("?, ", len(args)), ", ")+")", args...)
	}
	if q.CompanyID != "" {
		add("r.company_id = ?", q.CompanyID)
	}
	if q.Source != "" {
		add("r.source = ?", q.Source)
	}
	if q.Theme != "" {
		// Tested per row in listing order: one primary-key probe of the theme roll-up's record rows.
		add(`EXISTS (SELECT 1 FROM record_themes x WHERE x.workspace_id = r.workspace_id
			AND x.record_id = r.id AND x.theme = ?)`, q.Theme)
	}
	if q.CustomerEmailKey != "" {
		add("r.customer_email <> '' AND lower(r.customer_email) = ?", q.CustomerEmailKey) // the first term names the index's condition
	}
	if q.Linked != nil {
		cond := "EXISTS (SELECT 1 FROM record_links l WHERE l.feedback_id = r.id)"
		if !*q.Linked {
			cond = "NOT " + cond
		}
		add(cond)
	}
	if q.LinkedTo != "" && linkDrives {
		add("r.id IN (SELECT feedback_id FROM record_links WHERE target_id = ?)", q.LinkedTo)
	} else if q.LinkedTo != "" {
		add("EXISTS (SELECT 1 FROM record_links l WHERE l.feedback_id = r.id AND l.target_id = ?)", q.LinkedTo)
	}
}

// windowKeys wraps the keys of a listing with a date window in the update or demand order so that they
// reach its sort in creation order, newest first for a descending page (oldest first for an ascending one).
// The sort keeps only the page's worth of rows, and a row that sorts after all of them is dropped with one
// comparison instead of being inserted and evicting another; records updated or voted for mostly in the
// order they were created then mostly arrive in the page's direction and are dropped. Walked the other way
// (the index's own direction, which the planner takes for an unordered range), nearly every row would
// enter the sort. The LIMIT -1 keeps the subquery and its order from being merged into the outer query.
func windowKeys(keys, order string, asc bool) string {
	cols := "r.seq, r.updated_at, r.id"
	if order == core.OrderDemand {
		cols = "r.seq, r.feedback_count, r.created_at, r.id"
	}
	return `SELECT r.seq FROM (SELECT ` + cols + strings.TrimPrefix(keys, "SELECT r.seq") +
		filter{}.orderBy(asc) + ` LIMIT -1) r`
}

// keys is the query of the page's records by their sort keys alone, the page's size its last argument.
func (f filter) keys(asc bool) string {
	keys := `SELECT r.seq FROM records r WHERE ` + strings.Join(f.where, " AND ")
	if f.window && f.order != core.OrderCreated && f.order != "" {
		keys = windowKeys(keys, f.order, asc)
	}
	return keys + f.orderBy(asc) + ` LIMIT ?`
}

// orderBy is the listing's ORDER BY clause.
func (f filter) orderBy(asc bool) string {
	dir := " DESC"
	if asc {
		dir = " ASC"
	}
	switch f.order {
	case core.OrderUpdated:
		return " ORDER BY r.updated_at" + dir + ", r.id" + dir
	case core.OrderDemand:
		return " ORDER BY r.feedback_count" + dir + ", r.created_at" + dir + ", r.id" + dir
	}
	return " ORDER BY r.created_at" + dir + ", r.id" + dir
}

// page runs the listing with an extra condition (the search's) and returns up to limit records.
func (s *Store) page(ctx context.Context, rq reader, f filter, cond string, condArgs []any, asc bool, limit int) ([]core.Record, error) {
	where := f.where
	args := append([]any{}, f.args...)
	if cond != "" {
		where = append(append([]string{}, where...), cond)
		args = append(args, condArgs...)
	}
	query := recordSelect + ` WHERE ` + strings.Join(where, " AND ") + f.orderBy(asc) + ` LIMIT ?`
	if cond == "" {
		// The page's rows are chosen first by their sort keys alone and only then read whole with their
		// joins: when the listing has to sort (a date window in another order than creation), the sort
		// holds keys instead of whole records.
		query = recordSelect + ` WHERE r.seq IN (` + f.keys(asc) + `)` + f.orderBy(asc)
	}
	rows, err := rq.QueryContext(ctx, query, append(args, limit)...)
	if err != nil {
		return nil, err
	}
	return collect(rows, scanRecord)
}
