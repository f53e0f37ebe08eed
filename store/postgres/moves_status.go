package postgres

import (
	"context"

	"github.com/jackc/pgx/v5"

	"github.com/feedbridge/feedbridge/core"
)

var _ core.StatusMover = (*Store)(nil)

// MoveStatus reads a record and moves its status with its history entry in one statement, one round trip
// where the general edit takes two (the read, then the write). The statement's reading of the record is
// the one from before its own update (a data-modifying CTE's effects are not visible to the query around
// it), which is what the service explains a refused move from. The read takes no lock: the UPDATE writes
// only while the row's version is still the one read (checked again on the newest row when it had to wait
// for another writer), so a change committed in between makes it write nothing, and the service then
// takes the general path.
func (s *Store) MoveStatus(ctx context.Context, ws core.ID, m core.StatusMove) (core.Record, bool, error) {
	types, statuses := make([]string, 0, len(m.To)), make([]string, 0, len(m.To))
	for t, st := range m.To {
		types, statuses = append(types, string(t)), append(statuses, st)
	}
	var moved bool
	row := s.pool.QueryRow(ctx, `WITH old AS (
		SELECT * FROM records WHERE workspace_id = $1 AND id = $2
	), st AS (
		SELECT ($4::text[])[array_position($3::text[], old.type)] AS status FROM old
	), u AS (
		UPDATE records r SET status = st.status, updated_at = $5, version = r.version + 1
		FROM old, st
		WHERE r.workspace_id = $1 AND r.id = $2 AND r.version = old.version AND st.status IS NOT NULL AND st.status <> old.status
			AND old.status <> 'Merged' AND ($6 = -1 OR old.version = $6)
		RETURNING r.id
	), h AS (
		INSERT INTO record_history (workspace_id, record_id, at, actor, action, changes)
		SELECT $1, u.id, $5, $7, $8, jsonb_build_object('status', jsonb_build_array(old.status, st.status))::text
		FROM u, old, st
	)
	SELECT q.*, EXISTS (SELECT 1 FROM u) FROM (`+selectFrom("old")+`) q`,
		ws, m.ID, types, statuses, ms(m.At), m.IfVersion, m.Actor.String(), core.ActionStatus)
	rec, err := scanRecord(extraCols{row, []any{&moved}})
	if err == nil {
		recs := []core.Record{rec}
		err = loadMoves(ctx, s.pool, ws, recs)
		rec = recs[0]
	}
	if err != nil {
		return core.Record{}, false, fail("move status", err)
	}
	return rec, moved, nil
}

// extraCols is a row whose columns after the record's are scanned into extra.
type extraCols struct {
	pgx.Row
	extra []any
}

func (r extraCols) Scan(dest ...any) error { return r.Row.Scan(append(dest, r.extra...)...) }
