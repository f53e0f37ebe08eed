package sqlite

import (
	"context"

	"github.com/feedbridge/feedbridge/core"
)

// DeleteRecord removes a record and what belongs to it, and with it every record merged into it (and
// into those), which would otherwise keep a merged_into naming nothing. Each full-text entry goes with
// its row (the delete trigger), queued or indexed.
// ob writes record.deleted for each record deleted, as it was, in the same transaction.
func (s *Store) DeleteRecord(ctx context.Context, ws, id core.ID, ob *core.Outbox) error {
	return s.write(ctx, "delete record", func(tx *wtx) error {
		if _, err := readMoveRow(tx.ctx, tx, ws, id); err != nil {
			return err
		}
		all, err := mergedInto(tx, ws, id)
		if err != nil {
			return err
		}
		for _, r := range append(all, id) {
			if err := s.deletedEvent(tx, ws, r, ob); err != nil {
				return err
			}
			if err := deleteOne(tx, ws, r); err != nil {
				return err
			}
		}
		return nil
	})
}

// mergedInto lists the records merged into id, directly or through a chain. The merge's "merged_from"
// history entry on the target finds them by the history's record index; merged_into confirms each.
func mergedInto(tx *wtx, ws, id core.ID) ([]core.ID, error) {
	rows, err := tx.QueryContext(tx.ctx, `WITH RECURSIVE m(id) AS (
		SELECT ?2
		UNION
		SELECT r.id FROM m
		JOIN record_history h ON h.record_id = m.id AND h.action = 'merged'
		JOIN records r ON r.id = json_extract(h.changes, '$.merged_from[1]')
		WHERE r.workspace_id = ?1 AND r.merged_into = m.id
	) SELECT id, '' FROM m WHERE id <> ?2`, ws, id)
	if err != nil {
		return nil, err
	}
	var out []core.ID
	err = eachRow(rows, func(a, _ string) { out = append(out, core.ID(a)) })
	return out, err
}

// deleteOne removes one record with its rows in other tables; the records it was linked to are
// recounted.
func deleteOne(tx *wtx, ws, id core.ID) error {
	m, err := readMoveRow(tx.ctx, tx, ws, id)
	if err != nil {
		return err
	}
	targets, err := targetsOf(tx, id)
	if err != nil {
		return err
	}
	err = execAll(tx, []string{
		bumpLinkedFeedback,
		`DELETE FROM record_links WHERE feedback_id = ?1 OR target_id = ?1`,
		`DELETE FROM insights WHERE record_id = ?1`,
		`DELETE FROM queue_items WHERE queue = '` + core.InsightQueue + `' AND order_key <> '' AND order_key = ?1 AND workspace_id = ?2`,
		`DELETE FROM record_tags WHERE record_id = ?1`,
		`DELETE FROM idempotency_keys WHERE workspace_id = ?2 AND record_id = ?1`,
		`DELETE FROM record_history WHERE record_id = ?1`,
	}, id, ws)
	if err != nil {
		return err
	}
	if _, err := tx.ExecContext(tx.ctx, `DELETE FROM records WHERE seq = ?`, m.seq); err != nil {
		return err
	}
	return recount(tx.ctx, tx, targets)
}

// deletedEvent writes record.deleted for r as it is now, when ob asks for events.
func (s *Store) deletedEvent(tx *wtx, ws, r core.ID, ob *core.Outbox) error {
	if ob == nil {
		return nil
	}
	rec, err := recordByID(tx.ctx, tx, ws, r)
	if err != nil {
		return err
	}
	events, err := ob.Items(core.EventRecordDeleted, rec, nil)
	if err != nil {
		return err
	}
	return s.enqueue(tx, events)
}
