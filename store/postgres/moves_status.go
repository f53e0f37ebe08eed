package postgres

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"

	"github.com/feedbridge/feedbridge/core"
)

var _ core.StatusMover = (*Store)(nil)

// MoveStatus moves a record's status with its history entry in one statement, one round trip where the
// general edit takes two (the read, then the write). The UPDATE joins the row to itself: the joined row is
// the statement's reading of the record, before its own update, and is what it returns and what the
// history's "from" comes from. The join is by the row's physical address (ctid), a fetch of the heap page
// the key lookup already found, not a second descent of the primary key. It writes only while the row's
// version and address are still the ones read (checked again on the newest row when it had to wait for
// another writer, whose update gives the row a new address), so a change committed in between makes it
// write nothing. When nothing is written (no such record, a refused or empty move, that race) the
// record is read on its own, a second round trip only on that rarer path, and the service explains the
// refusal from it or takes the general path.
func (s *Store) MoveStatus(ctx context.Context, ws core.ID, m core.StatusMove) (core.Record, bool, error) {
	types, statuses := make([]string, 0, len(m.To)), make([]string, 0, len(m.To))
	for t, st := range m.To {
		types, statuses = append(types, string(t)), append(statuses, st)
	}
	row := s.pool.QueryRow(ctx, moveStatusSQL, string(ws), string(m.ID), types, statuses, ms(m.At), m.IfVersion, m.Actor.String(), core.ActionStatus)
	rec, err := scanRecord(row)
	if errors.Is(err, pgx.ErrNoRows) {
		rec, err = s.Record(ctx, ws, m.ID)
		return rec, false, err
	}
	if err == nil {
		recs := []core.Record{rec}
		err = loadMoves(ctx, s.pool, ws, recs)
		rec = recs[0]
	}
	if err != nil {
		return core.Record{}, false, fail("move status", err)
	}
	return rec, true, nil
}

// moveStatusSQL is MoveStatus's statement, put together once.
var moveStatusSQL = `WITH u AS (
	UPDATE records r SET status = ($4::text[])[array_position($3::text[], o.type)], updated_at = $5, version = r.version + 1
	FROM records o
	WHERE r.workspace_id = $1 AND r.id = $2 AND o.ctid = r.ctid AND r.version = o.version
		AND ($4::text[])[array_position($3::text[], o.type)] <> o.status AND o.status <> 'Merged' AND ($6 = -1 OR o.version = $6)
	RETURNING o.*
), h AS (
	INSERT INTO record_history (workspace_id, record_id, at, actor, action, changes)
	SELECT $1, u.id, $5, $7, $8, jsonb_build_object('status', jsonb_build_array(u.status, ($4::text[])[array_position($3::text[], u.type)]))::text
	FROM u
)` + oneRecordFrom("u")

// oneRecordFrom reads the record of a one-row source "r" with the same columns as recordSelect. Its labels
// come from record_labels, called only when the record names something to label, so a record without an
// assignee, product, tags, company or contact (most cards on a board) reads no other table, and the
// statement prepares no reads of them either; recordSelect's joins suit listings, where the planner may join
// many rows at once. The lateral subquery is kept apart (OFFSET 0) so that the call is made once, not once
// per label.
func oneRecordFrom(source string) string {
	return `
SELECT r.id, r.workspace_id, r.type, r.title, r.description_html, r.description, r.status,
       r.assignee_id, coalesce((l.n).assignee, ''), r.product_id, coalesce((l.n).product, ''),
       r.tag_ids, coalesce((l.n).tags, '{}'::text[]),
       r.source, r.customer_email, coalesce((l.n).company, ''),
       r.company_id, r.contact_id, r.reporter, r.release, r.timeframe, r.created_at, r.updated_at,
       coalesce((l.n).contact, ''), coalesce(r.importance, 0), r.merged_into, r.feedback_count, r.version, r.created_by
FROM ` + source + ` r, LATERAL (SELECT CASE
       WHEN r.assignee_id = '' AND r.product_id = '' AND cardinality(r.tag_ids) = 0 AND r.company_id = '' AND r.contact_id = ''
       THEN NULL::record_label_names
       ELSE record_labels(r.workspace_id, r.assignee_id, r.product_id, r.tag_ids, r.company_id, r.contact_id) END AS n
   OFFSET 0) l`
}
