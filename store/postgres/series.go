package postgres

import (
	"context"

	"github.com/jackc/pgx/v5"

	"github.com/feedbridge/feedbridge/core"
)

// ThemeSeries counts each asked theme's insights per slice of the window in one query; the slice is
// computed in whole milliseconds exactly as core.SeriesQuery.Bucket does.
func (s *Store) ThemeSeries(ctx context.Context, ws core.ID, q core.SeriesQuery) (map[string][]core.SeriesCount, error) {
	from, to := q.From.UnixMilli(), q.To.UnixMilli()
	rows, err := s.pool.Query(ctx, `SELECT theme, b::int, count(*)::int FROM (
		SELECT DISTINCT i.id, th.theme,
			(floor(extract(epoch FROM r.created_at) * 1000)::bigint - $2) * $3 / $4 AS b
		FROM insights i JOIN records r ON r.workspace_id = i.workspace_id AND r.id = i.record_id
		CROSS JOIN LATERAL unnest(i.themes) AS th(theme)
		WHERE i.workspace_id = $1 AND r.created_at >= $5 AND r.created_at <= $6 AND th.theme = ANY ($7::text[])) s
		GROUP BY theme, b`, ws, from, int64(q.Buckets), to-from+1, q.From, q.To, q.Themes)
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
