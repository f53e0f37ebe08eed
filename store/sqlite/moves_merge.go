package sqlite

import (
	"context"
	"fmt"
	"time"

	"github.com/feedbridge/feedbridge/core"
)

// MergeRecords merges id into into in one transaction. The single writer runs two crossing merges one
// after the other, so the second finds its target merged and is refused.
func (s *Store) MergeRecords(ctx context.Context, ws, id, into core.ID, at time.Time, actor core.Actor, ob *core.Outbox) (core.Record, error) {
	var rec core.Record
	err := s.write(ctx, "merge records", func(tx *wtx) error {
		src, err := readMoveRow(tx.ctx, tx, ws, id)
		if err != nil {
			return err
		}
		dst, err := readMoveRow(tx.ctx, tx, ws, into)
		if err != nil {
			return err
		}
		if src.status == core.StatusMerged || dst.status == core.StatusMerged {
			return core.ErrMerged
		}
		if src.typ != dst.typ {
			return &core.ValidationError{Field: "into", Code: "records of different types",
				Message: fmt.Sprintf("A %s merges only into another %s; the target is a %s.", src.typ, src.typ, dst.typ)}
		}
		var recounted []core.ID
		if src.typ == core.RecordFeedback {
			if recounted, err = targetsOf(tx, id); err != nil {
				return err
			}
			err = execAll(tx, []string{
				`INSERT OR IGNORE INTO record_links(workspace_id, feedback_id, target_id, created_at)
				SELECT workspace_id, ?2, target_id, created_at FROM record_links WHERE feedback_id = ?1`,
				`DELETE FROM record_links WHERE feedback_id = ?1`,
			}, id, into)
		} else {
			recounted = []core.ID{id, into}
			err = execAll(tx, []string{
				bumpLinkedFeedback,
				`INSERT OR IGNORE INTO record_links(workspace_id, feedback_id, target_id, created_at)
				SELECT workspace_id, feedback_id, ?2, created_at FROM record_links WHERE target_id = ?1`,
				`DELETE FROM record_links WHERE target_id = ?1`,
			}, id, into)
		}
		if err != nil {
			return err
		}
		err = execAll(tx, []string{
			`INSERT OR IGNORE INTO record_tags(record_id, tag_id, pos)
			SELECT ?2, tag_id, (SELECT coalesce(max(pos), -1) + 1 FROM record_tags WHERE record_id = ?2) + pos
			FROM record_tags WHERE record_id = ?1`,
			`UPDATE records SET status = 'Merged', merged_into = ?2, updated_at = ?3, version = version + 1 WHERE id = ?1`,
			`UPDATE records SET updated_at = ?3, version = version + 1 WHERE id = ?2`,
		}, id, into, ms(at))
		if err != nil {
			return err
		}
		if err := recount(tx.ctx, tx, recounted); err != nil {
			return err
		}
		if err := addHistory(tx.ctx, tx, ws, id, core.HistoryEntry{At: at, Actor: actor, Action: core.ActionMerged,
			Changes: map[string][2]any{"status": {src.status, core.StatusMerged}, "merged_into": {nil, string(into)}}}); err != nil {
			return err
		}
		if err := addHistory(tx.ctx, tx, ws, into, core.HistoryEntry{At: at, Actor: actor, Action: core.ActionMerged,
			Changes: map[string][2]any{"merged_from": {nil, string(id)}}}); err != nil {
			return err
		}
		if ob != nil {
			merged, err := recordByID(tx.ctx, tx, ws, id)
			if err != nil {
				return err
			}
			events, err := ob.ChangeEvents(core.EventRecordMerged, merged,
				map[string][2]any{"status": {src.status, core.StatusMerged}, "merged_into": {nil, string(into)}})
			if err != nil {
				return err
			}
			if err := s.enqueue(tx, events); err != nil {
				return err
			}
		}
		rec, err = recordByID(tx.ctx, tx, ws, into)
		return err
	})
	return rec, err
}

// bumpLinkedFeedback moves the version of the feedback linked to record ?1, whose links are about to
// change with it.
const bumpLinkedFeedback = `UPDATE records SET version = version + 1 WHERE id IN (SELECT feedback_id FROM record_links WHERE target_id = ?1)`

// targetsOf lists the records a Feedback is linked to.
func targetsOf(tx *wtx, id core.ID) ([]core.ID, error) {
	rows, err := tx.QueryContext(tx.ctx, `SELECT target_id, '' FROM record_links WHERE feedback_id = ?`, id)
	if err != nil {
		return nil, err
	}
	var out []core.ID
	err = eachRow(rows, func(a, _ string) { out = append(out, core.ID(a)) })
	return out, err
}

func execAll(tx *wtx, stmts []string, args ...any) error {
	for _, q := range stmts {
		if _, err := tx.ExecContext(tx.ctx, q, args...); err != nil {
			return err
		}
	}
	return nil
}
