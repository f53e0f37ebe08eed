package postgres

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"

	"github.com/feedbridge/feedbridge/core"
)

// DeleteRecord removes a record and what belongs to it, and with it every record merged into it (and
// into those), which would otherwise keep a merged_into naming nothing. The search index is the records
// table's own, so each row's deletion takes its entry with it.
// ob writes record.deleted for each record deleted, as it was, in the same transaction.
func (s *Store) DeleteRecord(ctx context.Context, ws, id core.ID, ob *core.Outbox) error {
	return s.inTx(ctx, "delete record", func(tx pgx.Tx) error {
		if _, err := lockRows(ctx, tx, ws, id); err != nil {
			return err
		}
		// A merge into id locks id, so with id locked the set of records merged into it is settled. They are
		// not locked themselves: nothing but a delete changes a merged record, and a delete of one that
		// lands first leaves this one nothing to remove for it.
		merged, err := mergedInto(ctx, tx, ws, id)
		if err != nil {
			return err
		}
		for _, r := range append(merged, id) {
			if err := s.deletedEvent(ctx, tx, ws, r, ob); err != nil {
				return err
			}
			if err := deleteOne(ctx, tx, ws, r); err != nil {
				return err
			}
		}
		return nil
	})
}

// mergedInto lists the records merged into id, directly or through a chain. The merge's "merged_from"
// history entry on the target finds them by the history's record index; merged_into confirms each.
func mergedInto(ctx context.Context, tx pgx.Tx, ws, id core.ID) ([]core.ID, error) {
	rows, err := tx.Query(ctx, `WITH RECURSIVE m(id) AS (
		SELECT $2::text
		UNION
		SELECT r.id FROM m
		JOIN record_history h ON h.workspace_id = $1 AND h.record_id = m.id AND h.action = 'merged'
		JOIN records r ON r.workspace_id = $1 AND r.id = h.changes::jsonb -> 'merged_from' ->> 1
		WHERE r.merged_into = m.id
	) SELECT id FROM m WHERE id <> $2`, ws, id)
	if err != nil {
		return nil, err
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[string])
	out := make([]core.ID, len(ids))
	for i, v := range ids {
		out[i] = core.ID(v)
	}
	return out, err
}

// deleteOne removes one record with its rows in other tables; the records it was linked to are
// recounted.
func deleteOne(ctx context.Context, tx pgx.Tx, ws, id core.ID) error {
	targets, err := targetsOf(ctx, tx, ws, id)
	if err != nil {
		return err
	}
	var stmts []stmt
	for _, q := range []string{
		bumpLinkedFeedback,
		`DELETE FROM record_links WHERE workspace_id = $1 AND (feedback_id = $2 OR target_id = $2)`,
		`DELETE FROM insights WHERE workspace_id = $1 AND record_id = $2`,
		`DELETE FROM queue_items WHERE queue = '` + core.InsightQueue + `' AND order_key <> '' AND order_key = $2 AND workspace_id = $1`,
		`DELETE FROM idempotency_keys WHERE workspace_id = $1 AND record_id = $2`,
		`DELETE FROM records WHERE workspace_id = $1 AND id = $2`,
		// After the record's row: see deleteRecords.
		`DELETE FROM record_history WHERE workspace_id = $1 AND record_id = $2`,
	} {
		stmts = append(stmts, stmt{q, []any{ws, id}})
	}
	if err := execAll(ctx, tx, stmts...); err != nil {
		return err
	}
	return recount(ctx, tx, ws, targets)
}

// deletedEvent writes record.deleted for r as it is now, when ob asks for events; a merged record that
// another delete removed first has nothing to say.
func (s *Store) deletedEvent(ctx context.Context, tx pgx.Tx, ws, r core.ID, ob *core.Outbox) error {
	if ob == nil {
		return nil
	}
	rec, err := s.recordIn(ctx, tx, ws, r)
	if errors.Is(err, core.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	events, err := ob.Items(core.EventRecordDeleted, rec, nil)
	if err != nil {
		return err
	}
	return enqueue(ctx, tx, events)
}
