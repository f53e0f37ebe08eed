package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/feedbridge/feedbridge/core"
)

// UpdateRecord writes an edit while its version is current. The UPDATE compares the version in its WHERE
// clause under the row's lock, so of two edits from the same version exactly one is written.
func (s *Store) UpdateRecord(ctx context.Context, ws core.ID, c core.RecordChange) (core.Record, error) {
	var rec core.Record
	err := s.inTx(ctx, "update record", func(tx pgx.Tx) error {
		var tags []core.ID
		if c.SetTags {
			tags = c.TagIDs
		}
		if _, err := resolveRefs(ctx, tx, ws, c.AssigneeID, c.ProductID, tags); err != nil {
			return err
		}
		html := c.DescriptionHTML
		set := `title = $3, description_html = $4, description = $5, search_text = $6, status = $7, assignee_id = $8,
			product_id = $9, importance = $10, release = $11, timeframe = $12, updated_at = $13, version = version + 1`
		args := []any{ws, c.ID, c.Title, html, c.Description, c.SearchText, c.Status, c.AssigneeID, c.ProductID,
			nullInt(c.Importance), c.Release, c.Timeframe, ms(c.UpdatedAt), c.Version}
		if c.SetTags {
			args = append(args, fromIDs(c.TagIDs))
			set += `, tag_ids = $15`
		}
		if c.SetContact {
			cust, err := setContact(ctx, tx, ws, c)
			if err != nil {
				return err
			}
			n := len(args)
			args = append(args, cust.contactID, cust.companyID, cust.email)
			set += fmt.Sprintf(`, contact_id = $%d, company_id = $%d, customer_email = $%d`, n+1, n+2, n+3)
		}
		tag, err := tx.Exec(ctx, `UPDATE records SET `+set+` WHERE workspace_id = $1 AND id = $2 AND version = $14
			AND status <> 'Merged'`, args...)
		if err != nil {
			return err
		}
		if tag.RowsAffected() != 1 {
			return staleOrWhy(ctx, tx, ws, c.ID)
		}
		if err := addHistory(ctx, tx, ws, c.ID, c.History); err != nil {
			return err
		}
		rec, err = s.recordIn(ctx, tx, ws, c.ID)
		return err
	})
	return rec, err
}

// staleOrWhy explains an edit that wrote nothing: no such record, a merged one, or a newer version.
func staleOrWhy(ctx context.Context, tx pgx.Tx, ws, id core.ID) error {
	var status string
	if err := tx.QueryRow(ctx, `SELECT status FROM records WHERE workspace_id = $1 AND id = $2`, ws, id).Scan(&status); err != nil {
		return err
	}
	if status == core.StatusMerged {
		return core.ErrMerged
	}
	return core.ErrStale
}

// setContact resolves the record's new customer as a create would; RenameContact names the contact.
func setContact(ctx context.Context, tx pgx.Tx, ws core.ID, c core.RecordChange) (customer, error) {
	if c.Contact == nil {
		return customer{}, nil
	}
	cust, err := ahead{}.customer(ctx, tx, ws, c.Contact)
	if err != nil {
		return cust, err
	}
	if c.RenameContact {
		if _, err := tx.Exec(ctx, `UPDATE contacts SET name = $3 WHERE workspace_id = $1 AND id = $2`, ws, cust.contactID, c.Contact.Name); err != nil {
			return cust, err
		}
	}
	if cust.companyID == "" {
		// The contact may belong to a company the address did not resolve (a personal mailbox).
		err = tx.QueryRow(ctx, `SELECT company_id FROM contacts WHERE workspace_id = $1 AND id = $2`, ws, cust.contactID).Scan(&cust.companyID)
	}
	return cust, err
}

// LinkRecords links a Feedback to an Idea or Feature; both rows are locked, so a delete of either waits
// or is waited for, and the link's foreign keys refuse a record deleted meanwhile.
func (s *Store) LinkRecords(ctx context.Context, ws core.ID, l core.LinkChange) (core.Record, error) {
	var rec core.Record
	err := s.inTx(ctx, "link records", func(tx pgx.Tx) error {
		rows, err := lockRows(ctx, tx, ws, l.Feedback, l.Target)
		if err != nil {
			return err
		}
		fb, tg := rows[l.Feedback], rows[l.Target]
		if fb.status == core.StatusMerged || tg.status == core.StatusMerged {
			return core.ErrMerged
		}
		if fb.typ != core.RecordFeedback || (tg.typ != core.RecordIdea && tg.typ != core.RecordFeature) {
			return &core.ValidationError{Field: "link", Code: "only feedback links to an idea or feature",
				Message: fmt.Sprintf("A link goes from a Feedback to an Idea or Feature; this is a %s to a %s.", fb.typ, tg.typ)}
		}
		tag, err := tx.Exec(ctx, `INSERT INTO record_links (workspace_id, feedback_id, target_id, created_at) VALUES ($1, $2, $3, $4)
			ON CONFLICT DO NOTHING`, ws, l.Feedback, l.Target, ms(l.At))
		if err != nil {
			return err
		}
		ch := map[string][2]any{}
		if tag.RowsAffected() == 1 {
			ch["links"] = [2]any{nil, string(l.Target)}
			if err := recount(ctx, tx, ws, []string{string(l.Target)}); err != nil {
				return err
			}
			if err := addHistory(ctx, tx, ws, l.Target, core.HistoryEntry{At: l.At, Actor: l.Actor, Action: core.ActionLinked,
				Changes: map[string][2]any{"feedback": {nil, string(l.Feedback)}}}); err != nil {
				return err
			}
		}
		status, imp := fb.status, int(fb.importance)
		if status == core.StatusTriage {
			status = core.StatusProcessed
			ch["status"] = [2]any{fb.status, status}
		}
		if l.Importance != 0 && l.Importance != imp {
			ch["importance"] = [2]any{nullInt(imp), l.Importance}
			imp = l.Importance
		}
		if len(ch) > 0 {
			if _, err := tx.Exec(ctx, `UPDATE records SET status = $3, importance = $4, updated_at = $5, version = version + 1
				WHERE workspace_id = $1 AND id = $2`, ws, l.Feedback, status, nullInt(imp), ms(l.At)); err != nil {
				return err
			}
			if err := addHistory(ctx, tx, ws, l.Feedback, core.HistoryEntry{At: l.At, Actor: l.Actor, Action: core.ActionLinked, Changes: ch}); err != nil {
				return err
			}
		}
		rec, err = s.recordIn(ctx, tx, ws, l.Feedback)
		return err
	})
	return rec, err
}

// UnlinkRecords removes a link; the feedback's updatedAt moves and the target counts one less.
func (s *Store) UnlinkRecords(ctx context.Context, ws core.ID, l core.LinkChange) error {
	return s.inTx(ctx, "unlink records", func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `DELETE FROM record_links WHERE workspace_id = $1 AND feedback_id = $2 AND target_id = $3`,
			ws, l.Feedback, l.Target)
		if err != nil {
			return err
		}
		if tag.RowsAffected() == 0 {
			return core.ErrNotFound
		}
		if _, err := tx.Exec(ctx, `UPDATE records SET updated_at = $3, version = version + 1 WHERE workspace_id = $1 AND id = $2`,
			ws, l.Feedback, ms(l.At)); err != nil {
			return err
		}
		if err := recount(ctx, tx, ws, []string{string(l.Target)}); err != nil {
			return err
		}
		if err := addHistory(ctx, tx, ws, l.Feedback, core.HistoryEntry{At: l.At, Actor: l.Actor, Action: core.ActionUnlinked,
			Changes: map[string][2]any{"links": {string(l.Target), nil}}}); err != nil {
			return err
		}
		return addHistory(ctx, tx, ws, l.Target, core.HistoryEntry{At: l.At, Actor: l.Actor, Action: core.ActionUnlinked,
			Changes: map[string][2]any{"feedback": {string(l.Feedback), nil}}})
	})
}

// MergeRecords merges id into into with both rows locked in id order: of two crossing merges the second
// waits for the first and then finds its record merged.
func (s *Store) MergeRecords(ctx context.Context, ws, id, into core.ID, at time.Time, actor core.Actor) (core.Record, error) {
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

// DeleteRecord removes a record and what belongs to it; the search index is the records table's own, so
// the row's deletion takes its entry with it.
func (s *Store) DeleteRecord(ctx context.Context, ws, id core.ID) error {
	return s.inTx(ctx, "delete record", func(tx pgx.Tx) error {
		if _, err := lockRows(ctx, tx, ws, id); err != nil {
			return err
		}
		targets, err := targetsOf(ctx, tx, ws, id)
		if err != nil {
			return err
		}
		var stmts []stmt
		for _, q := range []string{
			bumpLinkedFeedback,
			`DELETE FROM record_links WHERE workspace_id = $1 AND (feedback_id = $2 OR target_id = $2)`,
			`DELETE FROM insights WHERE workspace_id = $1 AND record_id = $2`,
			`DELETE FROM insight_jobs WHERE record_id = $2 AND workspace_id = $1`,
			`DELETE FROM idempotency_keys WHERE workspace_id = $1 AND record_id = $2`,
			`DELETE FROM record_history WHERE workspace_id = $1 AND record_id = $2`,
			`DELETE FROM records WHERE workspace_id = $1 AND id = $2`,
		} {
			stmts = append(stmts, stmt{q, []any{ws, id}})
		}
		err = execAll(ctx, tx, stmts...)
		if err != nil {
			return err
		}
		return recount(ctx, tx, ws, targets)
	})
}
