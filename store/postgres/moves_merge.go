package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/feedbridge/feedbridge/core"
)

// MergeRecords merges id into into with both rows locked in id order: of two crossing merges the second
// waits for the first and then finds its record merged.
func (s *Store) MergeRecords(ctx context.Context, ws, id, into core.ID, at time.Time, actor core.Actor, ob *core.Outbox) (core.Record, error) {
	var rec core.Record
	err := s.inTx(ctx, "merge records", func(tx pgx.Tx) error {
		rows, err := lockRows(ctx, tx, ws, id, into)
		if err != nil {
			return err
		}
		src, dst := rows[id], rows[into]
		if src.status == core.StatusMerged || dst.status == core.StatusMerged {
			return core.ErrMerged
		}
		if src.typ != dst.typ {
			return &core.ValidationError{Field: "into", Code: "records of different types",
				Message: fmt.Sprintf("A %s merges only into another %s; the target is a %s.", src.typ, src.typ, dst.typ)}
		}
		var recounted []string
		if src.typ == core.RecordFeedback {
			if recounted, err = targetsOf(ctx, tx, ws, id); err != nil {
				return err
			}
			err = execAll(ctx, tx,
				stmt{`INSERT INTO record_links (workspace_id, feedback_id, target_id, created_at)
				SELECT workspace_id, $3, target_id, created_at FROM record_links WHERE workspace_id = $1 AND feedback_id = $2
				ON CONFLICT DO NOTHING`, []any{ws, id, into}},
				stmt{`DELETE FROM record_links WHERE workspace_id = $1 AND feedback_id = $2`, []any{ws, id}})
		} else {
			recounted = []string{string(id), string(into)}
			err = execAll(ctx, tx,
				stmt{bumpLinkedFeedback, []any{ws, id}},
				stmt{`INSERT INTO record_links (workspace_id, feedback_id, target_id, created_at)
				SELECT workspace_id, feedback_id, $3, created_at FROM record_links WHERE workspace_id = $1 AND target_id = $2
				ON CONFLICT DO NOTHING`, []any{ws, id, into}},
				stmt{`DELETE FROM record_links WHERE workspace_id = $1 AND target_id = $2`, []any{ws, id}})
		}
		if err != nil {
			return err
		}
		err = execAll(ctx, tx,
			stmt{`UPDATE records SET tag_ids = tag_ids || ARRAY(SELECT t FROM unnest($3::text[]) WITH ORDINALITY AS x(t, n)
				WHERE NOT t = ANY (records.tag_ids) ORDER BY n), updated_at = $4, version = version + 1
			WHERE workspace_id = $1 AND id = $2`, []any{ws, into, src.tags, ms(at)}},
			stmt{`UPDATE records SET status = 'Merged', merged_into = $3, updated_at = $4, version = version + 1
			WHERE workspace_id = $1 AND id = $2`, []any{ws, id, into, ms(at)}})
		if err != nil {
			return err
		}
		if err := recount(ctx, tx, ws, recounted); err != nil {
			return err
		}
		if err := addHistory(ctx, tx, ws, id, core.HistoryEntry{At: at, Actor: actor, Action: core.ActionMerged,
			Changes: map[string][2]any{"status": {src.status, core.StatusMerged}, "merged_into": {nil, string(into)}}}); err != nil {
			return err
		}
		if err := addHistory(ctx, tx, ws, into, core.HistoryEntry{At: at, Actor: actor, Action: core.ActionMerged,
			Changes: map[string][2]any{"merged_from": {nil, string(id)}}}); err != nil {
			return err
		}
		if ob != nil {
			merged, err := s.recordIn(ctx, tx, ws, id)
			if err != nil {
				return err
			}
			events, err := ob.ChangeEvents(core.EventRecordMerged, merged,
				map[string][2]any{"status": {src.status, core.StatusMerged}, "merged_into": {nil, string(into)}})
			if err != nil {
				return err
			}
			if err := enqueue(ctx, tx, events); err != nil {
				return err
			}
		}
		rec, err = s.recordIn(ctx, tx, ws, into)
		return err
	})
	return rec, err
}

// bumpLinkedFeedback moves the version of the feedback linked to record $2, whose links are about to
// change with it.
const bumpLinkedFeedback = `UPDATE records SET version = version + 1 WHERE workspace_id = $1
	AND id IN (SELECT feedback_id FROM record_links WHERE workspace_id = $1 AND target_id = $2)`

func targetsOf(ctx context.Context, tx pgx.Tx, ws, id core.ID) ([]string, error) {
	rows, err := tx.Query(ctx, `SELECT target_id, '' FROM record_links WHERE workspace_id = $1 AND feedback_id = $2`, ws, id)
	if err != nil {
		return nil, err
	}
	var out []string
	err = eachRow(rows, func(a, _ string) { out = append(out, a) })
	return out, err
}

// stmt is one statement with its arguments.
type stmt struct {
	sql  string
	args []any
}

func execAll(ctx context.Context, tx pgx.Tx, stmts ...stmt) error {
	for _, st := range stmts {
		if _, err := tx.Exec(ctx, st.sql, st.args...); err != nil {
			return err
		}
	}
	return nil
}
