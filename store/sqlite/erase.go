package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/feedbridge/feedbridge/core"
)

// scrubbedTable is a table beside records whose text columns can quote a record's customer. It has an id
// primary key, a workspace_id and a record_id.
type scrubbedTable struct {
	table string
	key   string // the row's key column; "" for id
	cols  []string
}

func (t scrubbedTable) keyCol() string {
	if t.key == "" {
		return "id"
	}
	return t.key
}

// scrubbedTables are scrubbed with the records they hang off: a new table that quotes record text (a
// record history, say) is one more line here and in the PostgreSQL store's list.
var scrubbedTables = []scrubbedTable{
	{table: "insights", cols: []string{"summary", "quote"}},
	{table: "record_history", key: "seq", cols: []string{"changes"}},
}

// An erasure chunk holds the single writer for about eraseHold: the number of records in a chunk follows
// how long the last one took (from its turn to its commit), halved while it takes longer and doubled while
// it takes under a quarter of it, so the writer is held about as long however slow the machine is at the
// moment. The hold is kept well under what another workspace may wait for, because on a busy machine a
// chunk's wall time is a multiple of its work: small chunks make more of them, but each one short.
const (
	eraseHold       = 10 * time.Millisecond
	firstEraseChunk = 20
	minEraseChunk   = 5
	maxEraseChunk   = 500
	eraseGap        = 2 * time.Millisecond
	// eraseMergePages bounds the full-text merge work of one transaction after an erasure (see
	// mergeIndex).
	eraseMergePages = 64
	// eraseChunkMerge bounds the full-text merge work of one chunk, in pages written.
	eraseChunkMerge = 16
)

// ForgetContact erases a customer from ws. Candidates are found by reads that hold no lock; each chunk of
// them (core.EraseChunk to begin with, then sized by eraseHold) is rewritten in its own short write, so
// other workspaces' writes wait for one chunk at most. A chunk re-reads its records and rewrites only what still quotes the customer, so a run
// after an interruption picks up where the last one stopped. The contact's address and name go last: while they exist
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
		chunk := firstEraseChunk
		for len(ids) > 0 {
			n := min(len(ids), chunk)
			changed, held, err := s.eraseChunk(ctx, ws, contactID, sc, secret, ids[:n])
			if err != nil {
				return out, err
			}
			out.Records += changed
			ids = ids[n:]
			switch {
			case held > eraseHold && chunk > minEraseChunk:
				chunk = max(chunk/2, minEraseChunk)
			case held < eraseHold/4 && chunk < maxEraseChunk:
				chunk = min(chunk*2, maxEraseChunk)
			}
			// Writes queued meanwhile get a transaction of their own before the next chunk is queued;
			// queued together with it they would wait for it as well.
			if len(ids) > 0 {
				select {
				case <-time.After(eraseGap):
				case <-ctx.Done():
					return out, fmt.Errorf("sqlite: forget contact: %w", ctx.Err())
				}
			}
		}
	}
	if out.Records > 0 {
		if err := s.mergeIndex(ctx); err != nil {
			return out, err
		}
	}
	if contactID == "" {
		return out, nil
	}
	err = s.write(ctx, "forget contact", func(tx *wtx) error {
		// A record filed under the contact after the last pass still points at it.
		filed, args := contactRecords(ws, contactID, sc)
		if _, err := tx.ExecContext(tx.ctx, `UPDATE records SET contact_id = NULL, customer_email = '' WHERE `+filed, args...); err != nil {
			return err
		}
		// The contact stays as a row without address or name, under a key no address folds to: deleting it
		// would have SQLite look for records still pointing at it, which no index of records serves.
		res, err := tx.ExecContext(tx.ctx, `UPDATE contacts SET email = '', email_key = 'erased:' || id, name = '', company_id = NULL
			WHERE workspace_id = ? AND id = ?`, ws, contactID)
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
	if filedOnly {
		filed, args := contactRecords(ws, contactID, sc)
		return s.eraseIDs(ctx, `SELECT id FROM records WHERE `+filed, args)
	}
	conds := []string{"contact_id = ?", "lower(customer_email) = ?", "instr(lower(dedup_key), ?) > 0"}
	args := []any{ws, contactID, needles[0], needles[0]}
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
	return s.eraseIDs(ctx, `SELECT id FROM records WHERE workspace_id = ? AND (`+strings.Join(conds, " OR ")+`)`, args)
}

// contactRecords is a condition (with its arguments) on the records of ws that are filed under the
// contact or carry the customer's address. Records filed under a contact carry its address, so the
// address finds them through records_customer_listing; SQLite's lower folds ASCII only, so an address
// with other letters is looked for by contact id among all of the workspace's records.
func contactRecords(ws core.ID, contactID string, sc *core.Scrubber) (string, []any) {
	key := sc.Needles()[0]
	for _, c := range key {
		if c >= utf8.RuneSelf {
			return `workspace_id = ? AND (contact_id = ? OR lower(customer_email) = ?)`, []any{ws, contactID, key}
		}
	}
	return `workspace_id = ? AND customer_email <> '' AND lower(customer_email) = ?`, []any{ws, key}
}

// eraseIDs reads the ids that query selects.
func (s *Store) eraseIDs(ctx context.Context, query string, args []any) ([]core.ID, error) {
	rows, err := s.r.QueryContext(ctx, query, args...)
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
// many records changed and how long it held the writer.
func (s *Store) eraseChunk(ctx context.Context, ws core.ID, contactID string, sc *core.Scrubber, secret []byte, ids []core.ID) (int, time.Duration, error) {
	var (
		changed int
		held    time.Duration
	)
	var began time.Time
	err := s.writeSolo(ctx, "forget contact", func(tx *wtx) error {
		began = time.Now()
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
		// The unary + keeps the planner on the id index: by workspace it would read all of its records.
		rows, err := tx.QueryContext(tx.ctx, `SELECT seq, id, title, description_html, description, search_text,
			customer_email, coalesce(contact_id, ''), reporter, coalesce(dedup_key, ''),
			EXISTS (SELECT 1 FROM records_fts_pending p WHERE p.seq = records.seq)
			FROM records WHERE id IN (`+in+`) AND +workspace_id = ? ORDER BY seq`, append(args[1:], ws)...)
		if err != nil {
			return err
		}
		type update struct {
			seq     int64
			f, old  core.ErasedFields
			credits bool
			pending bool
		}
		var ups []update // in seq order, so that FTS5 takes each statement's entries in one flush
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
		// The index holds the old texts of records no longer queued: the chunk replaces them with the new
		// ones, in one statement (FTS5 flushes at every statement, so one per record made the chunk
		// slow). Queueing the new entries instead would leave the indexer one long drain of all of them,
		// which other writes would wait for. A record still queued gets its new text when it is drained.
		var entries []any // per record, in seq order: its old entry's deletion, then its new entry
		for _, u := range ups {
			if u.f.SearchText != u.old.SearchText && !u.pending {
				entries = append(entries, "delete", u.seq, u.old.SearchText, nil, u.seq, u.f.SearchText)
			}
		}
		if len(entries) > 0 {
			// Automatic merging is off for the chunk's own entries (FTS5 keeps the setting in the
			// transaction), so that no chunk pays for merging segments that other writes made. The chunk's
			// entries go in one statement, which FTS5 writes as one segment; the chunk then merges at most
			// eraseChunkMerge pages, which keeps the segments the chunks leave from piling up into the one
			// long merge FTS5 does once a level holds crisismerge of them. mergeIndex finishes the merging
			// after the erasure, in transactions of bounded size.
			if _, err := tx.ExecContext(tx.ctx, `INSERT INTO records_fts(records_fts, rank) VALUES ('automerge', 0)`); err != nil {
				return err
			}
			if _, err := tx.ExecContext(tx.ctx, `INSERT INTO records_fts(records_fts, rowid, search_text) VALUES `+
				placeholders(len(entries)/3, 3), entries...); err != nil {
				return err
			}
			if _, err := tx.ExecContext(tx.ctx, `INSERT INTO records_fts(records_fts, rank) VALUES ('merge', ?)`, eraseChunkMerge); err != nil {
				return err
			}
			if _, err := tx.ExecContext(tx.ctx, `INSERT INTO records_fts(records_fts, rank) VALUES ('automerge', `+ftsAutomerge+`)`); err != nil {
				return err
			}
		}
		if len(ups) == 0 {
			return nil
		}
		// One statement for the chunk: a statement per record cost more than the rows' own writes.
		vals := make([]any, 0, 9*len(ups))
		for _, u := range ups {
			vals = append(vals, u.seq, u.f.Title, u.f.DescriptionHTML, u.f.Description, u.f.SearchText, u.f.CustomerEmail,
				u.f.Reporter, u.f.DedupKey, u.credits)
		}
		if _, err := tx.ExecContext(tx.ctx, `WITH v(seq, title, html, description, search, email, reporter, dedup, credits) AS
			(VALUES `+placeholders(len(ups), 9)+`)
			UPDATE records SET title = v.title, description_html = v.html, description = v.description,
				search_text = v.search, customer_email = v.email, reporter = v.reporter, dedup_key = nullif(v.dedup, ''),
				contact_id = CASE WHEN v.credits THEN NULL ELSE records.contact_id END, updated_at = ?, version = records.version + 1
			FROM v WHERE records.seq = v.seq`, append(vals, now)...); err != nil {
			return err
		}
		changed += len(ups)
		return nil
	})
	if !began.IsZero() {
		held = time.Since(began)
	}
	if err != nil {
		return 0, 0, fmt.Errorf("sqlite: forget contact: %w", err)
	}
	return changed, held, nil
}

// scrubHanging scrubs the rows of scrubbedTables that hang off the records in (placeholders over args:
// the workspace, then the ids) and returns the records whose rows changed.
func scrubHanging(tx *wtx, ws core.ID, sc *core.Scrubber, in string, args []any) (map[core.ID]bool, error) {
	touched := map[core.ID]bool{}
	for _, t := range scrubbedTables {
		rows, err := tx.QueryContext(tx.ctx, `SELECT `+t.keyCol()+`, record_id, `+strings.Join(t.cols, ", ")+` FROM `+t.table+
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
			if _, err := tx.ExecContext(tx.ctx, `UPDATE `+t.table+` SET `+set+` WHERE workspace_id = ? AND `+t.keyCol()+` = ?`,
				append(r.vals, ws, r.id)...); err != nil {
				return nil, err
			}
		}
	}
	return touched, nil
}

// ftsAutomerge is the index's automerge setting (SQLite migration 0002), restored at the end of each chunk.
const ftsAutomerge = "8"

// mergeIndex merges the full-text segments the erasure's chunks left, eraseMergePages pages of work per
// transaction with a gap between them, until FTS5 reports no more to do: a 'merge' that found nothing to
// merge adds less than two to the connection's total changes.
func (s *Store) mergeIndex(ctx context.Context) error {
	for i := 0; i < 1000; i++ {
		var changed int64
		err := s.writeSolo(ctx, "forget contact", func(tx *wtx) error {
			var before int64
			if err := tx.QueryRowContext(tx.ctx, `SELECT total_changes()`).Scan(&before); err != nil {
				return err
			}
			if _, err := tx.ExecContext(tx.ctx, `INSERT INTO records_fts(records_fts, rank) VALUES ('merge', ?)`, eraseMergePages); err != nil {
				return err
			}
			if err := tx.QueryRowContext(tx.ctx, `SELECT total_changes()`).Scan(&changed); err != nil {
				return err
			}
			changed -= before
			return nil
		})
		if err != nil {
			return fmt.Errorf("sqlite: forget contact: merge index: %w", err)
		}
		if changed < 2 {
			return nil
		}
		select {
		case <-time.After(eraseGap):
		case <-ctx.Done():
			return fmt.Errorf("sqlite: forget contact: %w", ctx.Err())
		}
	}
	return nil
}
