package postgres

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/feedbridge/feedbridge/core"
)

// CompleteInsightJob stores the job's insights (replacing any of an earlier run) and marks it done.
func (s *Store) CompleteInsightJob(ctx context.Context, job core.InsightJob, worker string, ins []core.Insight) error {
	notHeld, err := s.completeJobs(ctx, "complete insight job", worker, []core.JobResult{{Job: job, Insights: ins}})
	if err == nil && len(notHeld) > 0 {
		err = fail("complete insight job", core.ErrConflict)
	}
	return err
}

// CompleteInsightJobs completes every job of results that worker still holds in one transaction of three
// round trips however many jobs there are; the others are returned, untouched.
func (s *Store) CompleteInsightJobs(ctx context.Context, worker string, results []core.JobResult) ([]core.ID, error) {
	if len(results) == 0 {
		return []core.ID{}, nil
	}
	return s.completeJobs(ctx, "complete insight jobs", worker, results)
}

// completeJobs removes the jobs of results that worker holds from the queue, in one statement, and replaces their
// records' insights in one batch.
func (s *Store) completeJobs(ctx context.Context, op, worker string, results []core.JobResult) ([]core.ID, error) {
	ids, wss := make([]string, len(results)), make([]string, len(results))
	for i, r := range results {
		ids[i], wss[i] = string(r.Job.ID), string(r.Job.Workspace)
	}
	var notHeld []core.ID
	err := s.inTx(ctx, op, func(tx pgx.Tx) error {
		rows, err := tx.Query(ctx, `DELETE FROM queue_items q USING unnest($1::text[], $2::text[]) AS d (id, ws)
			WHERE q.queue = '`+core.InsightQueue+`' AND q.id = d.id AND q.workspace_id = d.ws AND q.state = 'running'
				AND q.leased_by = $3 RETURNING q.id`, ids, wss, worker)
		if err != nil {
			return err
		}
		done, err := pgx.CollectRows(rows, pgx.RowTo[core.ID])
		if err != nil {
			return err
		}
		isDone := make(map[core.ID]bool, len(done))
		for _, id := range done {
			isDone[id] = true
		}
		notHeld = []core.ID{}
		var written []core.JobResult
		for _, r := range results {
			if !isDone[r.Job.ID] {
				notHeld = append(notHeld, r.Job.ID)
				continue
			}
			written = append(written, r)
		}
		if len(written) == 0 {
			return nil
		}
		b := &pgx.Batch{}
		queueInsights(b, written)
		queueRollup(b, written)
		return tx.SendBatch(ctx, b).Close()
	})
	if err != nil {
		return nil, err
	}
	return notHeld, nil
}

// queueInsights adds to b the two statements that replace the insights of the results' records with the
// results' insights, whatever their number: one deletion and one insertion from arrays, each insight's
// themes and tags a slice (offset, length) of one flat array. A record named by more than one result gets
// the insights of the last, as if they were written one after another.
func queueInsights(b *pgx.Batch, results []core.JobResult) {
	last := make(map[core.ID]int, len(results))
	for i, r := range results {
		last[r.Job.RecordID] = i
	}
	var (
		recWS, recIDs                                          []string
		ids, wss, recs, kinds, sums, quotes, sents, extractors []string
		scores                                                 []float64
		themeAt, themeLen, tagAt, tagLen                       []int32
		themes, tags                                           []string
		created                                                []*time.Time
	)
	for i, r := range results {
		if last[r.Job.RecordID] != i {
			continue
		}
		recWS, recIDs = append(recWS, string(r.Job.Workspace)), append(recIDs, string(r.Job.RecordID))
		for _, in := range r.Insights {
			if in.ID == "" {
				in.ID = core.NewID()
			}
			ids, wss, recs = append(ids, string(in.ID)), append(wss, string(r.Job.Workspace)), append(recs, string(r.Job.RecordID))
			kinds, sums, quotes = append(kinds, in.Kind), append(sums, in.Summary), append(quotes, in.Quote)
			sents, scores, extractors = append(sents, in.Sentiment), append(scores, in.SentimentScore), append(extractors, in.Extractor)
			themeAt, themeLen = append(themeAt, int32(len(themes))), append(themeLen, int32(len(in.Themes)))
			tagAt, tagLen = append(tagAt, int32(len(tags))), append(tagLen, int32(len(in.Tags)))
			themes, tags = append(themes, in.Themes...), append(tags, in.Tags...)
			var at *time.Time
			if !in.CreatedAt.IsZero() {
				t := ms(in.CreatedAt)
				at = &t
			}
			created = append(created, at)
		}
	}
	b.Queue(`DELETE FROM insights i USING unnest($1::text[], $2::text[]) AS d (ws, id)
		WHERE i.workspace_id = d.ws AND i.record_id = d.id`, recWS, recIDs)
	if len(ids) == 0 {
		return
	}
	b.Queue(`INSERT INTO insights (id, workspace_id, record_id, kind, summary, quote, sentiment, sentiment_score,
			themes, tags, extractor, created_at)
		SELECT x.id, x.ws, x.rec, x.kind, x.summary, x.quote, x.sentiment, x.score, coalesce(($15::text[])[x.ta + 1 : x.ta + x.tl], '{}'),
			coalesce(($16::text[])[x.ga + 1 : x.ga + x.gl], '{}'), x.extractor, coalesce(x.created_at, `+txNow+`)
		FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::float8[],
			$9::int[], $10::int[], $11::int[], $12::int[], $13::text[], $14::timestamptz[])
			AS x (id, ws, rec, kind, summary, quote, sentiment, score, ta, tl, ga, gl, extractor, created_at)`,
		ids, wss, recs, kinds, sums, quotes, sents, scores, themeAt, themeLen, tagAt, tagLen, extractors, created,
		nonNil(themes), nonNil(tags))
}

func nonNil(ss []string) []string {
	if ss == nil {
		return []string{}
	}
	return ss
}

func (s *Store) jobUpdate(ctx context.Context, op, sql string, args ...any) error {
	tag, err := s.pool.Exec(ctx, sql, args...)
	if err != nil {
		return fail(op, err)
	}
	if tag.RowsAffected() == 0 {
		return fail(op, core.ErrConflict)
	}
	return nil
}

const insightCols = `i.id, i.workspace_id, i.record_id, i.kind, i.summary, i.quote, i.sentiment, i.sentiment_score,
	i.themes, i.tags, i.extractor, i.created_at`

func scanInsight(row pgx.Row, extra ...any) (core.Insight, error) {
	var in core.Insight
	err := row.Scan(append([]any{&in.ID, &in.Workspace, &in.RecordID, &in.Kind, &in.Summary, &in.Quote, &in.Sentiment,
		&in.SentimentScore, &in.Themes, &in.Tags, &in.Extractor, &in.CreatedAt}, extra...)...)
	in.CreatedAt = ms(in.CreatedAt)
	return in, err
}

// Insights returns a record's insights in the order they were stored.
func (s *Store) Insights(ctx context.Context, ws core.ID, recordID core.ID) ([]core.Insight, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+insightCols+` FROM insights i
		WHERE i.workspace_id = $1 AND i.record_id = $2 ORDER BY i.created_at, i.id`, ws, recordID)
	if err != nil {
		return nil, fail("insights", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (core.Insight, error) { return scanInsight(r) })
	return out, fail("insights", err)
}

// InsightsOf returns the insights of many records of ws in one query, each record's in extraction order.
func (s *Store) InsightsOf(ctx context.Context, ws core.ID, recordIDs []core.ID) (map[core.ID][]core.Insight, error) {
	out := map[core.ID][]core.Insight{}
	if len(recordIDs) == 0 {
		return out, nil
	}
	list := make([]string, len(recordIDs))
	for i, id := range recordIDs {
		list[i] = string(id)
	}
	rows, err := s.pool.Query(ctx, `SELECT `+insightCols+` FROM insights i
		WHERE i.workspace_id = $1 AND i.record_id = ANY ($2::text[]) ORDER BY i.record_id, i.created_at, i.id`, ws, list)
	if err != nil {
		return nil, fail("insights of records", err)
	}
	ins, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (core.Insight, error) { return scanInsight(r) })
	if err != nil {
		return nil, fail("insights of records", err)
	}
	for _, in := range ins {
		out[in.RecordID] = append(out[in.RecordID], in)
	}
	return out, nil
}

// InsightRows returns the workspace's insights of records created within [from, to] (zero: open), each
// with the record's company name, for the signals roll-up.
func (s *Store) InsightRows(ctx context.Context, ws core.ID, from, to time.Time) ([]core.InsightRow, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+insightCols+`, coalesce(c.name, ''), r.created_at FROM insights i
		JOIN records r ON r.workspace_id = i.workspace_id AND r.id = i.record_id
		LEFT JOIN companies c ON c.workspace_id = r.workspace_id AND c.id = r.company_id
		WHERE i.workspace_id = $1 AND ($2::timestamptz IS NULL OR r.created_at >= $2) AND ($3::timestamptz IS NULL OR r.created_at <= $3)
		ORDER BY r.created_at, i.record_id, i.created_at, i.id`, ws, bound(from), bound(to))
	if err != nil {
		return nil, fail("insight rows", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (core.InsightRow, error) {
		var row core.InsightRow
		in, err := scanInsight(r, &row.Customer, &row.RecordCreatedAt)
		row.Insight = in
		row.RecordCreatedAt = row.RecordCreatedAt.UTC()
		return row, err
	})
	return out, fail("insight rows", err)
}
