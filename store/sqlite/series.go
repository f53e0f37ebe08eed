package sqlite

import (
	"context"
	"strings"

	"github.com/feedbridge/feedbridge/core"
)

// ThemeSeries sums each asked theme's insights per slice of whole UTC days from the day roll-up
// (theme_days), one row per theme and day of the window, never an insight.
func (s *Store) ThemeSeries(ctx context.Context, ws core.ID, q core.SeriesQuery) (map[string][]core.SeriesCount, error) {
	first, last := q.DayRange()
	args := []any{q.FromDay, q.Days, ws, first, last}
	for _, t := range q.Themes {
		args = append(args, t)
	}
	rows, err := s.rq.QueryContext(ctx, `SELECT theme, (day - ?1) / ?2 AS b, sum(n) FROM theme_days
		WHERE workspace_id = ?3 AND day BETWEEN ?4 AND ?5
			AND theme IN (`+strings.TrimSuffix(strings.Repeat("?, ", len(q.Themes)), ", ")+`)
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
