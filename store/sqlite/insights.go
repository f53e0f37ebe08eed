package sqlite

import (
	"context"
	"encoding/json"
	"strings"
	"time"

	"github.com/feedbridge/feedbridge/core"
)

// insertInsight stores one insight of the job's record; themes and tags are JSON arrays.
func insertInsight(ctx context.Context, tx *wtx, job core.InsightJob, in core.Insight, now int64) error {
	if in.ID == "" {
		in.ID = core.NewID()
	}
	created := now
	if !in.CreatedAt.IsZero() {
		created = ms(in.CreatedAt)
	}
	themes, err := json.Marshal(nonNil(in.Themes))
	if err != nil {
		return err
	}
	tags, err := json.Marshal(nonNil(in.Tags))
	if err != nil {
		return err
	}
	_, err = tx.ExecContext(ctx, `INSERT INTO insights(id, workspace_id, record_id, kind, summary, quote, sentiment,
		sentiment_score, themes, tags, extractor, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		in.ID, job.Workspace, job.RecordID, in.Kind, in.Summary, in.Quote, in.Sentiment, in.SentimentScore,
		string(themes), string(tags), in.Extractor, created)
	return err
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

const insightCols = `i.id, i.workspace_id, i.record_id, i.kind, i.summary, i.quote, i.sentiment, i.sentiment_score,
	i.themes, i.tags, i.extractor, i.created_at`

func scanInsight(sc scanner, extra ...any) (core.Insight, error) {
	var (
		in           core.Insight
		themes, tags string
		created      int64
	)
	err := sc.Scan(append([]any{&in.ID, &in.Workspace, &in.RecordID, &in.Kind, &in.Summary, &in.Quote, &in.Sentiment,
		&in.SentimentScore, &themes, &tags, &in.Extractor, &created}, extra...)...)
	if err != nil {
		return in, err
	}
	in.CreatedAt = fromMS(created)
	if err := json.Unmarshal([]byte(themes), &in.Themes); err != nil {
		return in, err
	}
	return in, json.Unmarshal([]byte(tags), &in.Tags)
}

// Insights returns the record's insights in the order they were extracted; [] while none exist.
func (s *Store) Insights(ctx context.Context, ws, recordID core.ID) ([]core.Insight, error) {
	rows, err := s.rq.QueryContext(ctx, `SELECT `+insightCols+` FROM insights i WHERE i.workspace_id = ? AND i.record_id = ?
		ORDER BY i.created_at, i.rowid`, ws, recordID)
	if err != nil {
		return nil, s.fail("insights", err)
	}
	out, err := collect(rows, func(sc scanner) (core.Insight, error) { return scanInsight(sc) })
	return out, s.fail("insights", err)
}

// InsightsOf returns the insights of many records of ws in one query, each record's in extraction order.
func (s *Store) InsightsOf(ctx context.Context, ws core.ID, recordIDs []core.ID) (map[core.ID][]core.Insight, error) {
	out := map[core.ID][]core.Insight{}
	if len(recordIDs) == 0 {
		return out, nil
	}
	args := []any{ws}
	for _, id := range recordIDs {
		args = append(args, id)
	}
	rows, err := s.rq.QueryContext(ctx, `SELECT `+insightCols+` FROM insights i WHERE i.workspace_id = ? AND i.record_id IN (`+
		strings.TrimSuffix(strings.Repeat("?, ", len(recordIDs)), ", ")+`) ORDER BY i.record_id, i.created_at, i.rowid`, args...)
	if err != nil {
		return nil, s.fail("insights of records", err)
	}
	list, err := collect(rows, func(sc scanner) (core.Insight, error) { return scanInsight(sc) })
	if err != nil {
		return nil, s.fail("insights of records", err)
	}
	for _, in := range list {
		out[in.RecordID] = append(out[in.RecordID], in)
	}
	return out, nil
}

// InsightRows returns the workspace's insights of records created within [from, to] (zero: open), each with
// the record's company name, for the signals roll-up.
func (s *Store) InsightRows(ctx context.Context, ws core.ID, from, to time.Time) ([]core.InsightRow, error) {
	lo, hi := int64(-1<<63), int64(1<<63-1)
	if !from.IsZero() {
		lo = ms(from)
	}
	if !to.IsZero() {
		hi = ms(to)
	}
	rows, err := s.rq.QueryContext(ctx, `SELECT `+insightCols+`, coalesce(c.name, ''), r.created_at FROM insights i
		JOIN records r ON r.id = i.record_id AND r.workspace_id = i.workspace_id
		LEFT JOIN companies c ON c.id = r.company_id
		WHERE i.workspace_id = ? AND r.created_at BETWEEN ? AND ? ORDER BY r.created_at, i.record_id, i.rowid`, ws, lo, hi)
	if err != nil {
		return nil, s.fail("insight rows", err)
	}
	out, err := collect(rows, func(sc scanner) (core.InsightRow, error) {
		var row core.InsightRow
		var created int64
		var err error
		row.Insight, err = scanInsight(sc, &row.Customer, &created)
		row.RecordCreatedAt = fromMS(created)
		return row, err
	})
	return out, s.fail("insight rows", err)
}
