package sqlite

import (
	"context"
	"strings"

	"github.com/feedbridge/feedbridge/core"
)

// ThemeSeries counts each asked theme's insights per slice of whole UTC days in one query, the slice
// computed from the record's creation day exactly as core.SeriesQuery.Bucket does.
func (s *Store) ThemeSeries(ctx context.Context, ws core.ID, q core.SeriesQuery) (map[string][]core.SeriesCount, error) {
	from, to := q.Window()
	args := []any{q.FromDay, q.Days, ws, ms(from), ms(to)}
	for _, t := range q.Themes {
		args = append(args, t)
	}
	rows, err := s.rq.QueryContext(ctx, `SELECT theme, b, count(*) FROM (
		SELECT DISTINCT i.id, je.value AS theme, (r.created_at / 86400000 - ?) / ? AS b
		FROM insights i JOIN records r ON r.id = i.record_id AND r.workspace_id = i.workspace_id, json_each(i.themes) je
		WHERE i.workspace_id = ? AND r.created_at BETWEEN ? AND ? AND je.type = 'text'
			AND je.value IN (`+strings.TrimSuffix(strings.Repeat("?, ", len(q.Themes)), ", ")+`))
		GROUP BY theme, b`, args...)
	if err != nil {
		return nil, s.fail("theme series", err)
	}
	type row struct {
		theme string
		c     core.SeriesCount
	}
	list, err := collect(rows, func(sc scanner) (row, error) {
		var r row
		return r, sc.Scan(&r.theme, &r.c.Bucket, &r.c.N)
	})
	if err != nil {
		return nil, s.fail("theme series", err)
	}
	out := map[string][]core.SeriesCount{}
	for _, r := range list {
		out[r.theme] = append(out[r.theme], r.c)
	}
	return out, nil
}
