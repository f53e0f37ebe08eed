package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"strings"

	"github.com/feedbridge/feedbridge/core"
)

// loadMoves fills what links add to a page of records: a Feedback's links and an Idea's accounts, with
// one query each however many records there are.
func loadMoves(ctx context.Context, q queryer, recs []core.Record) error {
	index := map[core.ID]int{}
	var fb, ideas []any
	for i, r := range recs {
		index[r.ID] = i
		switch r.Type {
		case core.RecordFeedback:
			fb = append(fb, r.ID)
		case core.RecordIdea:
			// An Idea without links has no accounts but its own customer's; the kept count says so
			// without a query, which spares the read of an edit and of most new Ideas.
			if r.FeedbackCount > 0 {
				ideas = append(ideas, r.ID)
			} else {
				recs[i].Accounts = core.RankAccounts(r.Customer, nil)
			}
		}
	}
	if len(fb) > 0 {
		rows, err := q.QueryContext(ctx, `SELECT feedback_id, target_id FROM record_links WHERE feedback_id IN (`+
			marks(len(fb))+`) ORDER BY feedback_id, created_at, target_id`, fb...)
		if err != nil {
			return err
		}
		err = eachRow(rows, func(a, b string) { r := &recs[index[core.ID(a)]]; r.Links = append(r.Links, core.ID(b)) })
		if err != nil {
			return err
		}
	}
	if len(ideas) == 0 {
		return nil
	}
	rows, err := q.QueryContext(ctx, `SELECT l.target_id, c.name FROM record_links l
		JOIN records f ON f.id = l.feedback_id JOIN companies c ON c.id = f.company_id
		WHERE l.target_id IN (`+marks(len(ideas))+`)`, ideas...)
	if err != nil {
		return err
	}
	linked := map[core.ID][]string{}
	if err := eachRow(rows, func(a, b string) { linked[core.ID(a)] = append(linked[core.ID(a)], b) }); err != nil {
		return err
	}
	for _, id := range ideas {
		r := &recs[index[id.(core.ID)]]
		r.Accounts = core.RankAccounts(r.Customer, linked[r.ID])
	}
	return nil
}

func marks(n int) string { return strings.TrimSuffix(strings.Repeat("?, ", n), ", ") }

// eachRow calls fn with every row of two text columns.
func eachRow(rows *sql.Rows, fn func(a, b string)) error {
	defer rows.Close()
	for rows.Next() {
		var a, b string
		if err := rows.Scan(&a, &b); err != nil {
			return err
		}
		fn(a, b)
	}
	return rows.Err()
}

// History lists a record's stored changes, oldest first.
func (s *Store) History(ctx context.Context, ws, id core.ID) ([]core.HistoryEntry, error) {
	var one int
	err := s.rq.QueryRowContext(ctx, `SELECT 1 FROM records WHERE workspace_id = ? AND id = ?`, ws, id).Scan(&one)
	if err != nil {
		return nil, s.fail("history", err)
	}
	rows, err := s.rq.QueryContext(ctx, `SELECT at, actor, action, changes FROM record_history
		WHERE record_id = ? AND workspace_id = ? ORDER BY seq`, id, ws)
	if err != nil {
		return nil, s.fail("history", err)
	}
	out, err := collect(rows, func(sc scanner) (core.HistoryEntry, error) {
		var (
			h              core.HistoryEntry
			at             int64
			actor, changes string
		)
		if err := sc.Scan(&at, &actor, &h.Action, &changes); err != nil {
			return h, err
		}
		h.At, h.Actor = fromMS(at), core.ParseActor(actor)
		return h, json.Unmarshal([]byte(changes), &h.Changes)
	})
	return out, s.fail("history", err)
}

// addHistory writes one entry of a record's history in the change's transaction.
func addHistory(ctx context.Context, tx *wtx, ws, id core.ID, h core.HistoryEntry) error {
	ch, err := json.Marshal(h.Changes)
	if err != nil {
		return err
	}
	_, err = tx.ExecContext(ctx, `INSERT INTO record_history(workspace_id, record_id, at, actor, action, changes)
		VALUES (?, ?, ?, ?, ?, ?)`, ws, id, ms(h.At), h.Actor.String(), h.Action, string(ch))
	return err
}

// moveRow is what a change reads of a record before writing it.
type moveRow struct {
	seq        int64
	typ        core.RecordType
	status     string
	importance int
	version    int64
	search     string
}

func readMoveRow(ctx context.Context, tx *wtx, ws, id core.ID) (moveRow, error) {
	var m moveRow
	err := tx.QueryRowContext(ctx, `SELECT seq, type, status, coalesce(importance, 0), version, search_text FROM records
		WHERE workspace_id = ? AND id = ?`, ws, id).Scan(&m.seq, &m.typ, &m.status, &m.importance, &m.version, &m.search)
	if errors.Is(err, sql.ErrNoRows) {
		return m, core.ErrNotFound
	}
	return m, err
}

// recount sets the feedback_count of targets from their links and moves their versions: what a read of
// them shows has changed.
func recount(ctx context.Context, tx *wtx, targets []core.ID) error {
	if len(targets) == 0 {
		return nil
	}
	args := make([]any, len(targets))
	for i, t := range targets {
		args[i] = t
	}
	_, err := tx.ExecContext(ctx, `UPDATE records SET feedback_count = (SELECT count(*) FROM record_links WHERE target_id = records.id),
		version = version + 1 WHERE id IN (`+marks(len(args))+`)`, args...)
	return err
}

func nullInt(n int) any {
	if n == 0 {
		return nil
	}
	return n
}
