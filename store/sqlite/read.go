package sqlite

import (
	"context"
	"database/sql"
	"strings"

	"github.com/feedbridge/feedbridge/core"
)

// queryer is what reads need: the read pool, or the write transaction when a write returns a record.
type queryer interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// recordFields and recordJoins read a record with its labels resolved; the tags come from loadTags.
const recordFields = `r.id, r.workspace_id, r.type, r.title,
	CASE r.description_html WHEN '' THEN r.description ELSE r.description_html END, r.description, r.status,
	coalesce(r.assignee_id, ''), coalesce(u.name, ''), coalesce(r.product_id, ''), coalesce(p.label, ''), r.source,
	r.customer_email, coalesce(c.name, ''), coalesce(r.company_id, ''), coalesce(r.contact_id, ''), r.reporter,
	r.release, r.timeframe, r.created_at, r.updated_at,
	coalesce(ct.name, ''), coalesce(r.importance, 0), r.merged_into, r.feedback_count, r.version, r.created_by`

const recordJoins = `LEFT JOIN users u ON u.id = r.assignee_id
	LEFT JOIN lookups p ON p.id = r.product_id
	LEFT JOIN companies c ON c.id = r.company_id
	LEFT JOIN contacts ct ON ct.id = r.contact_id`

const recordSelect = `SELECT ` + recordFields + ` FROM records r ` + recordJoins

func scanRecord(sc scanner) (core.Record, error) {
	var (
		r                core.Record
		created, updated int64
		createdBy        string
	)
	err := sc.Scan(&r.ID, &r.Workspace, &r.Type, &r.Title, &r.DescriptionHTML, &r.Description, &r.Status,
		&r.AssigneeID, &r.Assignee, &r.ProductID, &r.Product, &r.Source, &r.CustomerEmail, &r.Customer,
		&r.CompanyID, &r.ContactID, &r.Reporter, &r.Release, &r.Timeframe, &created, &updated,
		&r.CustomerName, &r.Importance, &r.MergedInto, &r.FeedbackCount, &r.Version, &createdBy)
	r.CreatedAt, r.UpdatedAt = fromMS(created), fromMS(updated)
	r.CreatedBy = core.ParseActor(createdBy)
	r.Links = []core.ID{}
	r.TagIDs, r.Tags = []core.ID{}, []string{}
	return r, err
}

func (s *Store) Record(ctx context.Context, ws, id core.ID) (core.Record, error) {
	r, err := recordByID(ctx, s.rq, ws, id)
	return r, s.fail("record", err)
}

// RecordsByID reads the records of ws among ids with their tags: two queries however many there are.
func (s *Store) RecordsByID(ctx context.Context, ws core.ID, ids []core.ID) ([]core.Record, error) {
	if len(ids) == 0 {
		return []core.Record{}, nil
	}
	args := []any{ws}
	for _, id := range ids {
		args = append(args, id)
	}
	// The ids are looked up one by one in their unique index; the workspace, written +r.workspace_id, only
	// filters, or the planner may read the whole workspace through its listing index.
	rows, err := s.rq.QueryContext(ctx, recordSelect+` WHERE +r.workspace_id = ? AND r.id IN (`+
		strings.TrimSuffix(strings.Repeat("?, ", len(ids)), ", ")+`)`, args...)
	if err != nil {
		return nil, s.fail("records by id", err)
	}
	recs, err := collect(rows, scanRecord)
	if err == nil {
		err = loadTags(ctx, s.rq, recs)
	}
	if err != nil {
		return nil, s.fail("records by id", err)
	}
	return recs, nil
}

// loadTags fills the tags of a page of records with one query, in the order they were given.
func loadTags(ctx context.Context, q queryer, recs []core.Record) error {
	if len(recs) == 0 {
		return nil
	}
	index := make(map[core.ID]int, len(recs))
	args := make([]any, len(recs))
	for i, r := range recs {
		index[r.ID] = i
		args[i] = r.ID
	}
	rows, err := q.QueryContext(ctx, `SELECT t.record_id, t.tag_id, l.label FROM record_tags t JOIN lookups l ON l.id = t.tag_id
		WHERE t.record_id IN (`+strings.TrimSuffix(strings.Repeat("?, ", len(recs)), ", ")+`) ORDER BY t.record_id, t.pos`, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var (
			rid, tid core.ID
			label    string
		)
		if err := rows.Scan(&rid, &tid, &label); err != nil {
			return err
		}
		r := &recs[index[rid]]
		r.TagIDs = append(r.TagIDs, tid)
		r.Tags = append(r.Tags, label)
	}
	return rows.Err()
}
