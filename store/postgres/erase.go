package postgres

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/feedbridge/feedbridge/core"
)

// scrubbedTable is a table beside records whose text columns can quote a record's customer. It has an id
// column, a workspace_id and a record_id.
type scrubbedTable struct {
	table string
	key   string // the row's key column; "" for id (text)
	cols  []string
}

func (t scrubbedTable) keyCol() string {
	if t.key == "" {
		return "id"
	}
	return t.key
}

// keyType is the key column's type: rows are read with the key as text and updated by it.
func (t scrubbedTable) keyType() string {
	if t.key == "" {
		return "text"
	}
	return "bigint"
}

// scrubbedTables are scrubbed with the records they hang off: a new table that quotes record text (a
// record history, say) is one more line here and in the SQLite store's list.
var scrubbedTables = []scrubbedTable{
	{table: "insights", cols: []string{"summary", "quote"}},
	{table: "record_history", key: "seq", cols: []string{"changes"}},
}

// pgEraseChunk is how many records one erasure transaction rewrites here. Its row locks hold up no other
// workspace, so a chunk can be larger than SQLite's (which holds the one writer); what bounds it is how
// long the records' own writers may wait.
const pgEraseChunk = 5 * core.EraseChunk

// ForgetContact erases a customer from ws. Candidates are found by a read outside any transaction; each
// chunk of pgEraseChunk of them is rewritten in its own short transaction that locks only its rows. A
// chunk re-reads its records and rewrites only what still quotes the customer, so a run after an
// interruption picks up where the last one stopped. The contact row goes last: while it exists the next run
// still knows the name to look for.
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
	err = s.pool.QueryRow(ctx, `SELECT id, name FROM contacts WHERE workspace_id = $1 AND email_key = $2`, ws, e.EmailKey).
		Scan(&contactID, &name)
	if err != nil && !errors.Is(err, pgx.ErrNoRows) {
		return out, fail("forget contact", err)
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
			n := min(len(ids), pgEraseChunk)
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
	err = s.inTx(ctx, "forget contact", func(tx pgx.Tx) error {
		out.Contacts = 0 // nothing of an attempt that was rolled back
		// A record filed under the contact after the last pass still names it.
		if _, err := tx.Exec(ctx, `UPDATE records SET contact_id = '', customer_email = ''
			WHERE workspace_id = $1 AND contact_id = $2`, ws, contactID); err != nil {
			return err
		}
		tag, err := tx.Exec(ctx, `DELETE FROM contacts WHERE workspace_id = $1 AND id = $2`, ws, contactID)
		if err != nil {
			return err
		}
		out.Contacts = int(tag.RowsAffected())
		// The contacts epoch tells a replica that remembers resolved contacts (as bulk writes once did) to
		// forget them; it still moves for such a replica during a rolling upgrade.
		_, err = tx.Exec(ctx, `UPDATE store_epochs SET n = n + 1 WHERE name = 'contacts'`)
		return err
	})
	return out, err
}

// eraseCandidates lists the records of ws that may quote the customer; the chunk decides with the scrubber.
func (s *Store) eraseCandidates(ctx context.Context, ws core.ID, contactID string, sc *core.Scrubber, filedOnly bool) ([]core.ID, error) {
	needles := sc.Needles()
	args := []any{ws, contactID, needles[0]}
	arg := func(v any) string { args = append(args, v); return fmt.Sprintf("$%d", len(args)) }
	conds := []string{"(contact_id = $2 AND $2 <> '')", "lower(customer_email) = $3"}
	if !filedOnly {
		conds = append(conds, "strpos(lower(coalesce(dedup_key, '')), $3) > 0")
		for _, n := range needles {
			f, p := arg(core.Fold(n)), arg(n)
			conds = append(conds, "strpos(search_text, "+f+") > 0", "strpos(lower(description_html), "+p+") > 0",
				"strpos(lower(reporter), "+p+") > 0")
		}
		for _, t := range scrubbedTables {
			var tc []string
			for _, c := range t.cols {
				for _, n := range needles {
					tc = append(tc, "strpos(lower("+c+"), "+arg(n)+") > 0")
				}
			}
			conds = append(conds, "id IN (SELECT record_id FROM "+t.table+" WHERE workspace_id = $1 AND ("+strings.Join(tc, " OR ")+"))")
		}
	}
	rows, err := s.pool.Query(ctx, `SELECT id FROM records WHERE workspace_id = $1 AND (`+strings.Join(conds, " OR ")+`)`, args...)
	if err != nil {
		return nil, fail("forget contact", err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[core.ID])
	return ids, fail("forget contact", err)
}

// eraseChunk rewrites the records ids of ws, and the rows hanging off them, in one transaction; it returns
// how many records changed.
func (s *Store) eraseChunk(ctx context.Context, ws core.ID, contactID string, sc *core.Scrubber, secret []byte, ids []core.ID) (int, error) {
	var changed int
	err := s.inTx(ctx, "forget contact", func(tx pgx.Tx) error {
		changed = 0
		list := make([]string, len(ids))
		for i, id := range ids {
			list[i] = string(id)
		}
		rows, err := tx.Query(ctx, `SELECT id, title, description_html, description, search_text, customer_email,
			contact_id, reporter, coalesce(dedup_key, '')
			FROM records WHERE workspace_id = $1 AND id = ANY($2::text[]) ORDER BY id FOR UPDATE`, ws, list)
		if err != nil {
			return err
		}
		type update struct {
			id      string
			f       core.ErasedFields
			credits bool
		}
		var ups []update
		seen := map[string]bool{}
		for rows.Next() {
			var (
				u       update
				contact string
			)
			if err := rows.Scan(&u.id, &u.f.Title, &u.f.DescriptionHTML, &u.f.Description, &u.f.SearchText,
				&u.f.CustomerEmail, &contact, &u.f.Reporter, &u.f.DedupKey); err != nil {
				rows.Close()
				return err
			}
			u.credits = contactID != "" && contact == contactID
			if sc.Scrub(&u.f, u.credits, secret, ws) || u.credits {
				ups = append(ups, u)
				seen[u.id] = true
			}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		// One statement for the chunk: a statement per record cost more than the rows' own writes.
		var cols [8][]string
		credits := make([]bool, len(ups))
		for i, u := range ups {
			for c, v := range []string{u.id, u.f.Title, u.f.DescriptionHTML, u.f.Description, u.f.SearchText,
				u.f.CustomerEmail, u.f.Reporter, u.f.DedupKey} {
				cols[c] = append(cols[c], v)
			}
			credits[i] = u.credits
		}
		if len(ups) > 0 {
			if _, err := tx.Exec(ctx, `UPDATE records r SET title = v.title, description_html = v.html,
				description = v.description, search_text = v.search, customer_email = v.email, reporter = v.reporter,
				dedup_key = nullif(v.dedup, ''), contact_id = CASE WHEN v.credits THEN '' ELSE r.contact_id END,
				updated_at = `+txNow+`, version = r.version + 1
				FROM unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[], $10::bool[])
					AS v(id, title, html, description, search, email, reporter, dedup, credits)
				WHERE r.workspace_id = $1 AND r.id = v.id`, ws, cols[0], cols[1], cols[2], cols[3], cols[4], cols[5],
				cols[6], cols[7], credits); err != nil {
				return err
			}
		}
		touched, err := scrubHanging(ctx, tx, ws, sc, list)
		if err != nil {
			return err
		}
		for id := range touched {
			seen[id] = true
		}
		changed = len(seen)
		return nil
	})
	return changed, err
}

// scrubHanging scrubs the rows of scrubbedTables that hang off the records ids and returns the records
// whose rows changed.
func scrubHanging(ctx context.Context, tx pgx.Tx, ws core.ID, sc *core.Scrubber, ids []string) (map[string]bool, error) {
	touched := map[string]bool{}
	for _, t := range scrubbedTables {
		rows, err := tx.Query(ctx, `SELECT `+t.keyCol()+`::text, record_id, `+strings.Join(t.cols, ", ")+` FROM `+t.table+
			` WHERE workspace_id = $1 AND record_id = ANY($2::text[]) ORDER BY `+t.keyCol()+` FOR UPDATE`, ws, ids)
		if err != nil {
			return nil, err
		}
		type row struct {
			id, rec string
			vals    []any
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
			r, diff := row{id: id, rec: rec}, false
			for _, v := range vals {
				nv := sc.Text(v)
				diff = diff || nv != v
				r.vals = append(r.vals, nv)
			}
			if diff {
				ups = append(ups, r)
				touched[rec] = true
			}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, err
		}
		set := make([]string, len(t.cols))
		for i, c := range t.cols {
			set[i] = fmt.Sprintf("%s = $%d", c, i+4)
		}
		// The record's id is in the condition because the history's key starts with it: by workspace and seq
		// alone the update would walk every entry of the workspace.
		b := &pgx.Batch{}
		for _, r := range ups {
			b.Queue(`UPDATE `+t.table+` SET `+strings.Join(set, ", ")+` WHERE workspace_id = $1 AND record_id = $2 AND `+t.keyCol()+` = $3::text::`+t.keyType(),
				append([]any{ws, r.rec, r.id}, r.vals...)...)
		}
		if err := tx.SendBatch(ctx, b).Close(); err != nil {
			return nil, err
		}
	}
	return touched, nil
}
