package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"github.com/feedbridge/feedbridge/core"
)

// scrubbedTable is a table beside records whose text columns can quote a record's customer. It has an id
// primary key, a workspace_id and a record_id.
type scrubbedTable struct {
	table string
	cols  []string
}

// scrubbedTables are scrubbed with the records they hang off: a new table that quotes record text (a
// record history, say) is one more line here and in the PostgreSQL store's list.
var scrubbedTables = []scrubbedTable{
	{table: "insights", cols: []string{"summary", "quote"}},
}

// ForgetContact erases a customer from ws. Candidates are found by reads that hold no lock; each chunk of
// core.EraseChunk of them is rewritten in its own short write, so other workspaces' writes wait for one
// chunk at most. A chunk re-reads its records and rewrites only what still quotes the customer, so a run
// after an interruption picks up where the last one stopped. The contact row goes last: while it exists
// the next run still knows the name to look for.
func (s *Store) ForgetContact(ctx context.Context, ws core.ID, e core.Erasure) (core.Forgotten, error) {
	var out core.Forgotten
	if _, err := s.Workspace(ctx, ws); err != nil {
		return out, err
	}
	secret, err := s.StoreSecret(ctx, core.ErasureSecret)
	if err != nil {
		return out, err
	}
	var contactID, name string
	err = s.rq.QueryRowContext(ctx, `SELECT id, name FROM contacts WHERE workspace_id = ? AND email_key = ?`, ws, e.EmailKey).
		Scan(&contactID, &name)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return out, s.fail("forget contact", err)
	}
	sc := core.NewScrubber(e.EmailKey, name)
	// The first pass looks for every mention; later ones only for records filed under the customer since.
	for pass := 0; pass < 3; pass++ {
		ids, err := s.eraseCandidates(ctx, ws, contactID, sc, pass > 0)
		if err != nil {
			return out, err
		}
		if len(ids) == 0 {
			break
		}
		for len(ids) > 0 {
			n := min(len(ids), core.EraseChunk)
			changed, err := s.eraseChunk(ctx, ws, contactID, sc, secret, ids[:n])
			if err != nil {
				return out, err
			}
			out.Records += changed
			ids = ids[n:]
		}
	}
	if contactID == "" {
		return out, nil
	}
	err = s.write(ctx, "forget contact", func(tx *wtx) error {
		// A record filed under the contact after the last pass still points at it.
		if _, err := tx.ExecContext(tx.ctx, `UPDATE records SET contact_id = NULL, customer_email = '' WHERE contact_id = ?`, contactID); err != nil {
			return err
		}
		res, err := tx.ExecContext(tx.ctx, `DELETE FROM contacts WHERE workspace_id = ? AND id = ?`, ws, contactID)
		if err != nil {
			return err
		}
		n, err := res.RowsAffected()
		out.Contacts = int(n)
		if err != nil {
			return err
		}
		_, err = tx.ExecContext(tx.ctx, `UPDATE store_epochs SET n = n + 1 WHERE name = 'contacts'`)
		return err
	})
	return out, err
}

// eraseCandidates lists the records of ws that may quote the customer. The text tests are a coarse
// filter (ASCII lower-casing); the chunk decides with the scrubber.
func (s *Store) eraseCandidates(ctx context.Context, ws core.ID, contactID string, sc *core.Scrubber, filedOnly bool) ([]core.ID, error) {
	needles := sc.Needles()
	conds := []string{"contact_id = ?", "lower(customer_email) = ?"}
	args := []any{ws, contactID, needles[0]}
	if !filedOnly {
		conds = append(conds, "instr(lower(dedup_key), ?) > 0")
		args = append(args, needles[0])
		for _, n := range needles {
			conds = append(conds, "instr(search_text, ?) > 0", "instr(lower(description_html), ?) > 0", "instr(lower(reporter), ?) > 0")
			args = append(args, core.Fold(n), n, n)
		}
		for _, t := range scrubbedTables {
			var tc []string
			args = append(args, ws)
			for _, c := range t.cols {
				for _, n := range needles {
					tc = append(tc, "instr(lower("+c+"), ?) > 0")
					args = append(args, n)
				}
			}
			conds = append(conds, "id IN (SELECT record_id FROM "+t.table+" WHERE workspace_id = ? AND ("+strings.Join(tc, " OR ")+"))")
		}
	}
	rows, err := s.r.QueryContext(ctx, `SELECT id FROM records WHERE workspace_id = ? AND (`+strings.Join(conds, " OR ")+`)`, args...)
	if err != nil {
		return nil, s.fail("forget contact", err)
	}
	defer rows.Close()
	var ids []core.ID
	for rows.Next() {
		var id core.ID
		if err := rows.Scan(&id); err != nil {
			return nil, s.fail("forget contact", err)
		}
		ids = append(ids, id)
	}
	return ids, s.fail("forget contact", rows.Err())
}

// eraseChunk rewrites the records ids of ws, and the rows hanging off them, in one write; it returns how
// many records changed.
func (s *Store) eraseChunk(ctx context.Context, ws core.ID, contactID string, sc *core.Scrubber, secret []byte, ids []core.ID) (int, error) {
	var changed int
	err := s.write(ctx, "forget contact", func(tx *wtx) error {
		changed = 0
		args := []any{ws}
		for _, id := range ids {
			args = append(args, id)
		}
		in := strings.TrimSuffix(strings.Repeat("?, ", len(ids)), ", ")
		touched, err := scrubHanging(tx, ws, sc, in, args)
		if err != nil {
			return err
		}
		rows, err := tx.QueryContext(tx.ctx, `SELECT seq, id, title, description_html, description, search_text,
			customer_email, coalesce(contact_id, ''), reporter, coalesce(dedup_key, ''),
			EXISTS (SELECT 1 FROM records_fts_pending p WHERE p.seq = records.seq)
			FROM records WHERE workspace_id = ? AND id IN (`+in+`)`, args...)
		if err != nil {
			return err
		}
		type update struct {
			seq     int64
			f, old  core.ErasedFields
			credits bool
			pending bool
		}
		var ups []update
		for rows.Next() {
			var (
				u       update
				id      core.ID
				contact string
			)
			if err := rows.Scan(&u.seq, &id, &u.f.Title, &u.f.DescriptionHTML, &u.f.Description, &u.f.SearchText,
				&u.f.CustomerEmail, &contact, &u.f.Reporter, &u.f.DedupKey, &u.pending); err != nil {
				rows.Close()
				return err
			}
			u.old = u.f
			u.credits = contactID != "" && contact == contactID
			if sc.Scrub(&u.f, u.credits, secret, ws) || u.credits {
				ups = append(ups, u)
			} else if touched[id] {
				changed++
			}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		now := s.nowMS()
		for _, u := range ups {
			if u.f.SearchText != u.old.SearchText && !u.pending {
				// The index holds the old text; the queue gives the record its new entry (indexer.go).
				if _, err := tx.ExecContext(tx.ctx, `INSERT INTO records_fts(records_fts, rowid, search_text) VALUES ('delete', ?, ?)`,
					u.seq, u.old.SearchText); err != nil {
					return err
				}
				tx.index(u.seq)
			}
			if _, err := tx.ExecContext(tx.ctx, `UPDATE records SET title = ?, description_html = ?, description = ?,
				search_text = ?, customer_email = ?, reporter = ?, dedup_key = nullif(?, ''),
				contact_id = CASE WHEN ? THEN NULL ELSE contact_id END, updated_at = ? WHERE seq = ?`,
				u.f.Title, u.f.DescriptionHTML, u.f.Description, u.f.SearchText, u.f.CustomerEmail, u.f.Reporter,
				u.f.DedupKey, u.credits, now, u.seq); err != nil {
				return err
			}
			changed++
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("sqlite: forget contact: %w", err)
	}
	return changed, nil
}

// scrubHanging scrubs the rows of scrubbedTables that hang off the records in (placeholders over args:
// the workspace, then the ids) and returns the records whose rows changed.
func scrubHanging(tx *wtx, ws core.ID, sc *core.Scrubber, in string, args []any) (map[core.ID]bool, error) {
	touched := map[core.ID]bool{}
	for _, t := range scrubbedTables {
		rows, err := tx.QueryContext(tx.ctx, `SELECT id, record_id, `+strings.Join(t.cols, ", ")+` FROM `+t.table+
			` WHERE workspace_id = ? AND record_id IN (`+in+`)`, args...)
		if err != nil {
			return nil, err
		}
		type row struct {
			id   string
			vals []any
		}
		var ups []row
		for rows.Next() {
			var (
				id, rec string
				vals    = make([]string, len(t.cols))
				dest    = []any{&id, &rec}
			)
			for i := range vals {
				dest = append(dest, &vals[i])
			}
			if err := rows.Scan(dest...); err != nil {
				rows.Close()
				return nil, err
			}
			r, diff := row{id: id}, false
			for _, v := range vals {
				nv := sc.Text(v)
				diff = diff || nv != v
				r.vals = append(r.vals, nv)
			}
			if diff {
				ups = append(ups, r)
				touched[core.ID(rec)] = true
			}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, err
		}
		set := strings.Join(t.cols, " = ?, ") + " = ?"
		for _, r := range ups {
			if _, err := tx.ExecContext(tx.ctx, `UPDATE `+t.table+` SET `+set+` WHERE workspace_id = ? AND id = ?`,
				append(r.vals, ws, r.id)...); err != nil {
				return nil, err
			}
		}
	}
	return touched, nil
}
