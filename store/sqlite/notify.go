package sqlite

import (
	"github.com/feedbridge/feedbridge/core"
)

// notify writes the closing-the-loop messages of a status move in the move's transaction: who brought
// the record (the record itself and its linked feedback) is read here, and only the messages whose id
// notices_sent does not hold yet are queued, so a second move to the same status sends nothing new.
func (s *Store) notify(tx *wtx, ws core.ID, plan *core.NotifyPlan, rec core.Record) error {
	if plan == nil {
		return nil
	}
	rows, err := tx.QueryContext(tx.ctx, `
		SELECT id, origin, reporter, customer_email FROM records WHERE workspace_id = ? AND id = ? AND origin <> ''
		UNION ALL
		SELECT r.id, r.origin, r.reporter, r.customer_email FROM record_links l JOIN records r ON r.id = l.feedback_id
		WHERE l.workspace_id = ? AND l.target_id = ? AND r.origin <> ''`, ws, rec.ID, ws, rec.ID)
	if err != nil {
		return err
	}
	var srcs []core.NotifySource
	for rows.Next() {
		var src core.NotifySource
		if err := rows.Scan(&src.Record, &src.Origin, &src.Reporter, &src.CustomerEmail); err != nil {
			rows.Close()
			return err
		}
		srcs = append(srcs, src)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	items, err := plan.Items(rec, srcs)
	if err != nil || len(items) == 0 {
		return err
	}
	now := s.nowMS()
	var due []core.QueueItem
	for _, it := range items {
		res, err := tx.ExecContext(tx.ctx, `INSERT INTO notices_sent (id, workspace_id, created_at) VALUES (?, ?, ?)
			ON CONFLICT (id) DO NOTHING`, it.ID, ws, now)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil {
			return err
		} else if n == 1 {
			due = append(due, it)
		}
	}
	return s.enqueue(tx, due)
}
