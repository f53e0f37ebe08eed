package sqlite

import (
	"context"

	"github.com/feedbridge/feedbridge/core"
)

var _ core.StatusMover = (*Store)(nil)

// MoveStatus reads a record and moves its status with its history entry in one write: the general edit
// reads the record on a reader first and again in its write, this reads it once, on the writer.
func (s *Store) MoveStatus(ctx context.Context, ws core.ID, m core.StatusMove) (core.Record, bool, error) {
	var (
		rec   core.Record
		moved bool
	)
	err := s.write(ctx, "move status", func(tx *wtx) error {
		var err error
		moved = false
		if rec, err = recordByID(tx.ctx, tx, ws, m.ID); err != nil {
			return err
		}
		to, ok := m.To[rec.Type]
		if !ok || to == rec.Status || rec.Status == core.StatusMerged || (m.IfVersion != -1 && m.IfVersion != rec.Version) {
			return nil
		}
		if _, err := tx.ExecContext(tx.ctx, `UPDATE records SET status = ?, updated_at = ?, version = version + 1
			WHERE workspace_id = ? AND id = ?`, to, ms(m.At), ws, m.ID); err != nil {
			return err
		}
		moved = true
		return addHistory(tx.ctx, tx, ws, m.ID, core.HistoryEntry{At: m.At, Actor: m.Actor, Action: core.ActionStatus,
			Changes: map[string][2]any{"status": {rec.Status, to}}})
	})
	if err != nil {
		return core.Record{}, false, err
	}
	return rec, moved, nil
}
