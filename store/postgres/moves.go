package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/feedbridge/feedbridge/core"
)

// UpdateRecord writes an edit while its version is current. The UPDATE compares the version in its WHERE
// clause under the row's lock, so of two edits from the same version exactly one is written.
func (s *Store) UpdateRecord(ctx context.Context, ws core.ID, c core.RecordChange) (core.Record, error) {
	// An edit whose events or notifications are due writes them in the transaction below.
	if rec, ok := core.Applied(c); ok && c.Outbox == nil && c.Notify == nil {
		if err := s.updateOwnRow(ctx, ws, c); err != nil {
			return core.Record{}, err
		}
		return rec, nil
	}
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
		var ok bool
		if rec, ok = core.Applied(c); !ok {
			if rec, err = s.recordIn(ctx, tx, ws, c.ID); err != nil {
				return err
			}
		}
		events, err := c.Outbox.UpdateEvents(rec, c.History.Changes)
		if err != nil {
			return err
		}
		if err := enqueue(ctx, tx, events); err != nil {
			return err
		}
		return notify(ctx, tx, ws, c.Notify, rec)
	})
	return rec, err
}

// staleOrWhy explains an edit that wrote nothing: no such record, a merged one, or a newer version.
func staleOrWhy(ctx context.Context, tx querier, ws, id core.ID) error {
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
		if rec, err = s.recordIn(ctx, tx, ws, l.Feedback); err != nil || len(ch) == 0 {
			return err
		}
		events, err := l.Outbox.ChangeEvents(core.EventRecordLinked, rec, ch)
		if err != nil {
			return err
		}
		return enqueue(ctx, tx, events)
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
		if err := addHistory(ctx, tx, ws, l.Target, core.HistoryEntry{At: l.At, Actor: l.Actor, Action: core.ActionUnlinked,
			Changes: map[string][2]any{"feedback": {string(l.Feedback), nil}}}); err != nil {
			return err
		}
		if l.Outbox == nil {
			return nil
		}
		rec, err := s.recordIn(ctx, tx, ws, l.Feedback)
		if err != nil {
			return err
		}
		events, err := l.Outbox.ChangeEvents(core.EventRecordUnlinked, rec, map[string][2]any{"links": {string(l.Target), nil}})
		if err != nil {
			return err
		}
		return enqueue(ctx, tx, events)
	})
}
