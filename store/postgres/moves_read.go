package postgres

import (
	"context"
	"encoding/json"

	"github.com/jackc/pgx/v5"

	"github.com/feedbridge/feedbridge/core"
)

// loadMoves fills what links add to a page of records: a Feedback's links and an Idea's accounts, with
// one query each however many records there are.
func loadMoves(ctx context.Context, q querier, ws core.ID, recs []core.Record) error {
	index := map[core.ID]int{}
	var fb, ideas []string
	for i, r := range recs {
		index[r.ID] = i
		switch r.Type {
		case core.RecordFeedback:
			fb = append(fb, string(r.ID))
		case core.RecordIdea:
			// An Idea without links has no accounts but its own customer's; the kept count says so
			// without a query, which spares the read of an edit and of most new Ideas.
			if r.FeedbackCount > 0 {
				ideas = append(ideas, string(r.ID))
			} else {
				recs[i].Accounts = core.RankAccounts(r.Customer, nil)
			}
		}
	}
	if len(fb) > 0 {
		rows, err := q.Query(ctx, `SELECT feedback_id, target_id FROM record_links
			WHERE workspace_id = $1 AND feedback_id = ANY ($2::text[]) ORDER BY feedback_id, created_at, target_id`, ws, fb)
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
	// The links are counted by Idea and company (record_link_companies, migration 0030): the most linked
	// Ideas, which a demand listing shows first, have many links but far fewer companies. An Idea's
	// companies and their counts come back as one row.
	rows, err := q.Query(ctx, `SELECT g.target_id, array_agg(c.name), array_agg(g.n) FROM record_link_companies g
		JOIN companies c ON c.workspace_id = g.workspace_id AND c.id = g.company_id
		WHERE g.workspace_id = $1 AND g.target_id = ANY ($2::text[])
		GROUP BY g.target_id`, ws, ideas)
	if err != nil {
		return err
	}
	type counted struct {
		names  []string
		counts []int64
	}
	linked := map[core.ID]counted{}
	for rows.Next() {
		var id core.ID
		var c counted
		if err := rows.Scan(&id, &c.names, &c.counts); err != nil {
			rows.Close()
			return err
		}
		linked[id] = c
	}
	if err := rows.Err(); err != nil {
		return err
	}
	for _, id := range ideas {
		r := &recs[index[core.ID(id)]]
		c := linked[r.ID]
		r.Accounts = core.RankAccountCounts(r.Customer, c.names, c.counts)
	}
	return nil
}

// eachRow calls fn with every row of two text columns.
func eachRow(rows pgx.Rows, fn func(a, b string)) error {
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
	if err := s.pool.QueryRow(ctx, `SELECT 1 FROM records WHERE workspace_id = $1 AND id = $2`, ws, id).Scan(&one); err != nil {
		return nil, fail("history", err)
	}
	rows, err := s.pool.Query(ctx, `SELECT at, actor, action, changes FROM record_history
		WHERE workspace_id = $1 AND record_id = $2 ORDER BY seq`, ws, id)
	if err != nil {
		return nil, fail("history", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (core.HistoryEntry, error) {
		var (
			h              core.HistoryEntry
			actor, changes string
		)
		if err := r.Scan(&h.At, &actor, &h.Action, &changes); err != nil {
			return h, err
		}
		h.At, h.Actor = ms(h.At), core.ParseActor(actor)
		return h, json.Unmarshal([]byte(changes), &h.Changes)
	})
	if out == nil {
		out = []core.HistoryEntry{}
	}
	return out, fail("history", err)
}

// addHistory writes one entry of a record's history in the change's transaction.
func addHistory(ctx context.Context, tx pgx.Tx, ws, id core.ID, h core.HistoryEntry) error {
	ch, err := json.Marshal(h.Changes)
	if err != nil {
		return err
	}
	_, err = tx.Exec(ctx, `INSERT INTO record_history (workspace_id, record_id, at, actor, action, changes)
		VALUES ($1, $2, $3, $4, $5, $6)`, ws, id, ms(h.At), h.Actor.String(), h.Action, string(ch))
	return err
}

// moveRow is what a change reads of a record, locked, before writing it.
type moveRow struct {
	typ        core.RecordType
	status     string
	importance int32
	version    int64
	tags       []string
}

// lockRows reads and locks records of ws in id order, so that two changes of the same records never wait
// for each other crosswise; an absent id is ErrNotFound.
func lockRows(ctx context.Context, tx pgx.Tx, ws core.ID, ids ...core.ID) (map[core.ID]moveRow, error) {
	list := make([]string, len(ids))
	for i, id := range ids {
		list[i] = string(id)
	}
	rows, err := tx.Query(ctx, `SELECT id, type, status, coalesce(importance, 0), version, tag_ids FROM records
		WHERE workspace_id = $1 AND id = ANY ($2::text[]) ORDER BY id FOR UPDATE`, ws, list)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[core.ID]moveRow{}
	for rows.Next() {
		var (
			id string
			m  moveRow
		)
		if err := rows.Scan(&id, &m.typ, &m.status, &m.importance, &m.version, &m.tags); err != nil {
			return nil, err
		}
		out[core.ID(id)] = m
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	for _, id := range ids {
		if _, ok := out[id]; !ok {
			return nil, core.ErrNotFound
		}
	}
	return out, nil
}

// recount sets the feedback_count of targets from their links and moves their versions.
func recount(ctx context.Context, tx pgx.Tx, ws core.ID, targets []string) error {
	if len(targets) == 0 {
		return nil
	}
	_, err := tx.Exec(ctx, `UPDATE records SET feedback_count = (SELECT count(*) FROM record_links l
		WHERE l.workspace_id = records.workspace_id AND l.target_id = records.id), version = version + 1
		WHERE workspace_id = $1 AND id = ANY ($2::text[])`, ws, targets)
	return err
}

func nullInt(n int) any {
	if n == 0 {
		return nil
	}
	return int32(n)
}

// recordIn reads one record with its labels and links inside tx.
func (s *Store) recordIn(ctx context.Context, tx pgx.Tx, ws, id core.ID) (core.Record, error) {
	r, err := s.record(ctx, tx, ws, id)
	if err != nil {
		return r, err
	}
	recs := []core.Record{r}
	err = loadMoves(ctx, tx, ws, recs)
	return recs[0], err
}
