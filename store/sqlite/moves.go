package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/feedbridge/feedbridge/core"
)

// UpdateRecord writes an edit while its version is current; the single writer makes the version read and
// the write one step, and the UPDATE checks the version again.
func (s *Store) UpdateRecord(ctx context.Context, ws core.ID, c core.RecordChange) (core.Record, error) {
	var rec core.Record
	err := s.write(ctx, "update record", func(tx *wtx) error {
		m, err := readMoveRow(tx.ctx, tx, ws, c.ID)
		switch {
		case err != nil:
			return err
		case m.status == core.StatusMerged:
			return core.ErrMerged
		case m.version != c.Version:
			return core.ErrStale
		}
		w := s.newRecordWriter(tx, ws)
		nr := core.NewRecord{ProductID: c.ProductID, AssigneeID: c.AssigneeID}
		if c.SetTags {
			nr.TagIDs = c.TagIDs
		}
		if _, err := w.refs(nr); err != nil {
			return err
		}
		set := `title = ?, description_html = ?, description = ?, search_text = ?, status = ?, assignee_id = ?,
			product_id = ?, importance = ?, release = ?, timeframe = ?, updated_at = ?, version = version + 1`
		html := c.DescriptionHTML
		if html == c.Description {
			html = ""
		}
		args := []any{c.Title, html, c.Description, c.SearchText, c.Status, nullID(c.AssigneeID), nullID(c.ProductID),
			nullInt(c.Importance), c.Release, c.Timeframe, ms(c.UpdatedAt)}
		if c.SetContact {
			contactID, companyID, email, err := w.setContact(c)
			if err != nil {
				return err
			}
			set += `, contact_id = ?, company_id = ?, customer_email = ?`
			args = append(args, contactID, companyID, email)
		}
		if c.SearchText != m.search {
			if err := s.reindex(tx, m); err != nil {
				return err
			}
		}
		res, err := tx.ExecContext(tx.ctx, `UPDATE records SET `+set+` WHERE seq = ? AND version = ?`, append(args, m.seq, c.Version)...)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil || n != 1 {
			return errors.Join(err, core.ErrStale)
		}
		if c.SetTags {
			if _, err := tx.ExecContext(tx.ctx, `DELETE FROM record_tags WHERE record_id = ?`, c.ID); err != nil {
				return err
			}
			for i, t := range c.TagIDs {
				if _, err := tx.ExecContext(tx.ctx, `INSERT INTO record_tags(record_id, tag_id, pos) VALUES (?, ?, ?)`, c.ID, t, i); err != nil {
					return err
				}
			}
		}
		if err := addHistory(tx.ctx, tx, ws, c.ID, c.History); err != nil {
			return err
		}
		var ok bool
		if rec, ok = core.Applied(c); !ok {
			if rec, err = recordByID(tx.ctx, tx, ws, c.ID); err != nil {
				return err
			}
		}
		events, err := c.Outbox.UpdateEvents(rec, c.History.Changes)
		if err != nil {
			return err
		}
		if err := s.enqueue(tx, events); err != nil {
			return err
		}
		return s.notify(tx, ws, c.Notify, rec)
	})
	return rec, err
}

// setContact resolves the record's new customer as a create would; RenameContact names the contact.
func (w *recordWriter) setContact(c core.RecordChange) (contactID, companyID any, email string, err error) {
	if c.Contact == nil {
		return nil, nil, "", nil
	}
	ct, comp, err := w.contact(c.Contact)
	if err != nil {
		return nil, nil, "", err
	}
	if c.RenameContact && ct.name != c.Contact.Name {
		if _, err := w.tx.ExecContext(w.ctx, `UPDATE contacts SET name = ? WHERE id = ?`, c.Contact.Name, ct.id); err != nil {
			return nil, nil, "", err
		}
		ct.name = c.Contact.Name
		ws, key := w.ws, c.Contact.EmailKey
		w.tx.onCommit(func() { w.s.resolved.putContact(ws, key, ct) })
	}
	// The contact may have had a company before this address resolved one: the record joins the
	// contact's, as a create does.
	if comp == "" {
		comp = ct.companyID
	}
	return ct.id, nullID(core.ID(comp)), c.Contact.Email, nil
}

// reindex takes a record's full-text entry out of the index and queues it again, so the indexer writes
// the new text; an entry still queued is written from the row as it is then.
func (s *Store) reindex(tx *wtx, m moveRow) error {
	var queued int
	err := tx.QueryRowContext(tx.ctx, `SELECT count(*) FROM records_fts_pending WHERE seq = ?`, m.seq).Scan(&queued)
	if err != nil || queued > 0 {
		return err
	}
	if _, err := tx.ExecContext(tx.ctx, `INSERT INTO records_fts(records_fts, rowid, search_text) VALUES ('delete', ?, ?)`, m.seq, m.search); err != nil {
		return err
	}
	tx.index(m.seq)
	return nil
}

// LinkRecords links a Feedback to an Idea or Feature in one transaction.
func (s *Store) LinkRecords(ctx context.Context, ws core.ID, l core.LinkChange) (core.Record, error) {
	var rec core.Record
	err := s.write(ctx, "link records", func(tx *wtx) error {
		fb, tg, err := linkPair(tx, ws, l)
		if err != nil {
			return err
		}
		var one int
		err = tx.QueryRowContext(tx.ctx, `SELECT 1 FROM record_links WHERE feedback_id = ? AND target_id = ?`, l.Feedback, l.Target).Scan(&one)
		exists := err == nil
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		ch := map[string][2]any{}
		if !exists {
			if _, err := tx.ExecContext(tx.ctx, `INSERT INTO record_links(workspace_id, feedback_id, target_id, created_at) VALUES (?, ?, ?, ?)`,
				ws, l.Feedback, l.Target, ms(l.At)); err != nil {
				return err
			}
			ch["links"] = [2]any{nil, string(l.Target)}
			if err := recount(tx.ctx, tx, []core.ID{l.Target}); err != nil {
				return err
			}
			if err := addHistory(tx.ctx, tx, ws, l.Target, core.HistoryEntry{At: l.At, Actor: l.Actor, Action: core.ActionLinked,
				Changes: map[string][2]any{"feedback": {nil, string(l.Feedback)}}}); err != nil {
				return err
			}
		}
		status, imp := fb.status, fb.importance
		if status == core.StatusTriage {
			status = core.StatusProcessed
			ch["status"] = [2]any{fb.status, status}
		}
		if l.Importance != 0 && l.Importance != imp {
			ch["importance"] = [2]any{nullInt(imp), l.Importance}
			imp = l.Importance
		}
		_ = tg
		if len(ch) > 0 {
			if _, err := tx.ExecContext(tx.ctx, `UPDATE records SET status = ?, importance = ?, updated_at = ?, version = version + 1 WHERE seq = ?`,
				status, nullInt(imp), ms(l.At), fb.seq); err != nil {
				return err
			}
			if err := addHistory(tx.ctx, tx, ws, l.Feedback, core.HistoryEntry{At: l.At, Actor: l.Actor, Action: core.ActionLinked, Changes: ch}); err != nil {
				return err
			}
		}
		if rec, err = recordByID(tx.ctx, tx, ws, l.Feedback); err != nil || len(ch) == 0 {
			return err
		}
		events, err := l.Outbox.ChangeEvents(core.EventRecordLinked, rec, ch)
		if err != nil {
			return err
		}
		return s.enqueue(tx, events)
	})
	return rec, err
}

// linkPair reads both records of a link: absent is ErrNotFound, merged ErrMerged, wrong types invalid.
func linkPair(tx *wtx, ws core.ID, l core.LinkChange) (fb, tg moveRow, err error) {
	if fb, err = readMoveRow(tx.ctx, tx, ws, l.Feedback); err != nil {
		return fb, tg, err
	}
	if tg, err = readMoveRow(tx.ctx, tx, ws, l.Target); err != nil {
		return fb, tg, err
	}
	if fb.status == core.StatusMerged || tg.status == core.StatusMerged {
		return fb, tg, core.ErrMerged
	}
	if fb.typ != core.RecordFeedback || (tg.typ != core.RecordIdea && tg.typ != core.RecordFeature) {
		return fb, tg, &core.ValidationError{Field: "link", Code: "only feedback links to an idea or feature",
			Message: fmt.Sprintf("A link goes from a Feedback to an Idea or Feature; this is a %s to a %s.", fb.typ, tg.typ)}
	}
	return fb, tg, nil
}

// UnlinkRecords removes a link; the feedback's updatedAt moves and the target counts one less.
func (s *Store) UnlinkRecords(ctx context.Context, ws core.ID, l core.LinkChange) error {
	return s.write(ctx, "unlink records", func(tx *wtx) error {
		res, err := tx.ExecContext(tx.ctx, `DELETE FROM record_links WHERE workspace_id = ? AND feedback_id = ? AND target_id = ?`,
			ws, l.Feedback, l.Target)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil || n == 0 {
			return errors.Join(err, core.ErrNotFound)
		}
		if _, err := tx.ExecContext(tx.ctx, `UPDATE records SET updated_at = ?, version = version + 1 WHERE workspace_id = ? AND id = ?`,
			ms(l.At), ws, l.Feedback); err != nil {
			return err
		}
		if err := recount(tx.ctx, tx, []core.ID{l.Target}); err != nil {
			return err
		}
		if err := addHistory(tx.ctx, tx, ws, l.Feedback, core.HistoryEntry{At: l.At, Actor: l.Actor, Action: core.ActionUnlinked,
			Changes: map[string][2]any{"links": {string(l.Target), nil}}}); err != nil {
			return err
		}
		if err := addHistory(tx.ctx, tx, ws, l.Target, core.HistoryEntry{At: l.At, Actor: l.Actor, Action: core.ActionUnlinked,
			Changes: map[string][2]any{"feedback": {string(l.Feedback), nil}}}); err != nil {
			return err
		}
		if l.Outbox == nil {
			return nil
		}
		rec, err := recordByID(tx.ctx, tx, ws, l.Feedback)
		if err != nil {
			return err
		}
		events, err := l.Outbox.ChangeEvents(core.EventRecordUnlinked, rec, map[string][2]any{"links": {string(l.Target), nil}})
		if err != nil {
			return err
		}
		return s.enqueue(tx, events)
	})
}
