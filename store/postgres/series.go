package postgres

import (
	"context"

	"github.com/jackc/pgx/v5"

	"github.com/feedbridge/feedbridge/core"
)

// ThemeSeries counts each asked theme's insights per slice of whole UTC days in one query, the slice
// computed from the record's creation day exactly as core.SeriesQuery.Bucket does.
func (s *Store) ThemeSeries(ctx context.Context, ws core.ID, q core.SeriesQuery) (map[string][]core.SeriesCount, error) {
	from, to := q.Window()
	rows, err := s.pool.Query(ctx, `SELECT theme, b::int, count(*)::int FROM (
		SELECT DISTINCT i.id, th.theme,
			(floor(extract(epoch FROM r.created_at) / 86400)::bigint - $2) / $3 AS b
		FROM insights i JOIN records r ON r.workspace_id = i.workspace_id AND r.id = i.record_id
		CROSS JOIN LATERAL unnest(i.themes) AS th(theme)
		WHERE i.workspace_id = $1 AND r.created_at >= $4 AND r.created_at <= $5 AND th.theme = ANY ($6::text[])) s
		GROUP BY theme, b`, ws, q.FromDay, int64(q.Days), from, to, q.Themes)
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
