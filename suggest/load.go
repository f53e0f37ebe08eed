package suggest

import (
	"context"
	"fmt"
	"time"
	"unicode/utf8"

	"github.com/feedbridge/feedbridge/core"
)

// Reading the store into an index: a whole build, an incremental refresh, and one record.

func (x *Index) build(ctx context.Context, ws core.ID, w *wsIndex) error {
	start := x.opt.Now()
	ix := newIndex(x.lex)
	err := x.read(ctx, ws, time.Time{}, func(r core.Record) { x.put(ix, r) })
	if err != nil {
		return fmt.Errorf("suggest: build index: %w", err)
	}
	w.mu.Lock()
	w.ix, w.builtAt, w.readAt = ix, start, start
	w.mu.Unlock()
	return nil
}

// refresh reads what changed since and applies it: records re-read unchanged cost a map lookup each.
func (x *Index) refresh(ctx context.Context, ws core.ID, w *wsIndex, since time.Time) error {
	start := x.opt.Now()
	var recs []core.Record
	if err := x.read(ctx, ws, since, func(r core.Record) { recs = append(recs, r) }); err != nil {
		return fmt.Errorf("suggest: refresh index: %w", err)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, r := range recs {
		x.put(w.ix, r)
	}
	w.readAt = start
	return nil
}

// put indexes one record, or drops it when it was merged away.
func (x *Index) put(ix *index, r core.Record) {
	if r.Status == "Merged" {
		ix.remove(r.ID)
		return
	}
	text := r.Description
	if utf8.RuneCountInString(text) > x.opt.MaxText {
		text = string([]rune(text)[:x.opt.MaxText])
	}
	ix.put(r.ID, r.UpdatedAt.UTC().Format(time.RFC3339Nano), r.Title, text)
}

// read pages through the workspace's Ideas and Features updated since (all when zero).
func (x *Index) read(ctx context.Context, ws core.ID, since time.Time, fn func(core.Record)) error {
	for _, t := range []core.RecordType{core.RecordIdea, core.RecordFeature} {
		q := core.ListQuery{Type: t, UpdatedSince: since, Asc: true, Limit: pageSize}
		for {
			recs, err := x.src.Records(ctx, ws, q)
			if err != nil {
				return fmt.Errorf("read %s records: %w", t, err)
			}
			for _, r := range recs {
				fn(r)
			}
			if len(recs) < pageSize {
				break
			}
			last := recs[len(recs)-1]
			q.After = &core.Cursor{CreatedAt: last.CreatedAt, ID: last.ID}
		}
	}
	return nil
}
