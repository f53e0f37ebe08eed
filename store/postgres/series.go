package postgres

import (
	"context"

	"github.com/jackc/pgx/v5"

	"github.com/feedbridge/feedbridge/core"
)

// ThemeSeries sums each asked theme's insights per slice of whole UTC days from the day roll-up
// (theme_days), one row per theme and day of the window, never an insight.
func (s *Store) ThemeSeries(ctx context.Context, ws core.ID, q core.SeriesQuery) (map[string][]core.SeriesCount, error) {
	first, last := q.DayRange()
	rows, err := s.pool.Query(ctx, `SELECT theme, ((day - $2) / $3)::int AS b, sum(n)::int FROM theme_days
		WHERE workspace_id = $1 AND day BETWEEN $4 AND $5 AND theme = ANY ($6::text[])
		GROUP BY theme, b`, ws, q.FromDay, int64(q.Days), first, last, q.Themes)
	if err != nil {
		return nil, fail("theme series", err)
	}
	out := map[string][]core.SeriesCount{}
	var (
		theme string
		c     core.SeriesCount
	)
	_, err = pgx.ForEachRow(rows, []any{&theme, &c.Bucket, &c.N}, func() error {
		out[theme] = append(out[theme], c)
		return nil
	})
	if err != nil {
		return nil, fail("theme series", err)
	}
	return out, nil
}
