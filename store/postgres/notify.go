package postgres

import (
	"context"

	"github.com/jackc/pgx/v5"

	"github.com/feedbridge/feedbridge/core"
)

// notify writes the closing-the-loop messages of a status move in the move's transaction: who brought
// the record (the record itself and its linked feedback) is read here, and only the messages whose id
// notices_sent does not hold yet are queued, so a second move to the same status sends nothing new.
func notify(ctx context.Context, tx pgx.Tx, ws core.ID, plan *core.NotifyPlan, rec core.Record) error {
	if plan == nil {
		return nil
	}
	rows, err := tx.Query(ctx, `
		SELECT id, origin, reporter, customer_email FROM records WHERE workspace_id = $1 AND id = $2 AND origin <> ''
		UNION ALL
		SELECT r.id, r.origin, r.reporter, r.customer_email FROM record_links l
		JOIN records r ON r.workspace_id = l.workspace_id AND r.id = l.feedback_id
		WHERE l.workspace_id = $1 AND l.target_id = $2 AND r.origin <> ''`, ws, rec.ID)
	if err != nil {
		return err
	}
	srcs, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (core.NotifySource, error) {
		var src core.NotifySource
		err := row.Scan(&src.Record, &src.Origin, &src.Reporter, &src.CustomerEmail)
		return src, err
	})
	if err != nil {
		return err
	}
	items, err := plan.Items(rec, srcs)
	if err != nil || len(items) == 0 {
		return err
	}
	var due []core.QueueItem
	for _, it := range items {
		tag, err := tx.Exec(ctx, `INSERT INTO notices_sent (id, workspace_id) VALUES ($1, $2) ON CONFLICT (id) DO NOTHING`, it.ID, ws)
		if err != nil {
			return err
		}
		if tag.RowsAffected() == 1 {
			due = append(due, it)
		}
	}
	return enqueue(ctx, tx, due)
}
