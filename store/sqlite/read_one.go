package sqlite

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/feedbridge/feedbridge/core"
)

// oneRecordSelect reads a record with its tags in one statement: a read of one record (every edit starts
// with one) otherwise pays a second round trip through the driver for its tags alone. The tags come as a
// JSON array of [id, label] pairs in their order, which no label's text can break. The aggregate's ORDER BY
// opens a temporary b-tree each time it runs, so it runs only for a record that has tags (most have none).
const oneRecordSelect = `SELECT ` + recordFields + `, CASE WHEN EXISTS (SELECT 1 FROM record_tags t WHERE t.record_id = r.id)
	THEN (SELECT json_group_array(json_array(t.tag_id, l.label) ORDER BY t.pos)
	FROM record_tags t JOIN lookups l ON l.id = t.tag_id WHERE t.record_id = r.id) ELSE '[]' END FROM records r ` + recordJoins

// withExtra scans a row whose last columns go to extra, after what the wrapped scan reads.
type withExtra struct {
	sc    scanner
	extra []any
}

func (w withExtra) Scan(dest ...any) error { return w.sc.Scan(append(dest, w.extra...)...) }

func recordByID(ctx context.Context, q queryer, ws, id core.ID) (core.Record, error) {
	var tags string
	r, err := scanRecord(withExtra{q.QueryRowContext(ctx, oneRecordSelect+` WHERE r.workspace_id = ? AND r.id = ?`, ws, id), []any{&tags}})
	if err != nil {
		return core.Record{}, err
	}
	if tags != "[]" {
		var pairs [][2]string
		if err := json.Unmarshal([]byte(tags), &pairs); err != nil {
			return core.Record{}, fmt.Errorf("tags of %s: %w", id, err)
		}
		for _, p := range pairs {
			r.TagIDs, r.Tags = append(r.TagIDs, core.ID(p[0])), append(r.Tags, p[1])
		}
	}
	recs := []core.Record{r}
	if err := loadMoves(ctx, q, recs); err != nil {
		return core.Record{}, err
	}
	return recs[0], nil
}
