package listbench

import (
	"testing"
	"time"

	"github.com/feedbridge/feedbridge/core"
)

// TestRecordsShape checks what the listings count on: the first tag is the common one and the last a
// rare one, a fifth or so of the rows come from free mail (no company), and every record is complete.
func TestRecordsShape(t *testing.T) {
	const n = 20_000
	tags := make([]core.ID, len(TagLabels))
	for i := range tags {
		tags[i] = core.ID(TagLabels[i])
	}
	products := []core.ID{"p0", "p1"}
	perTag := map[core.ID]int{}
	free, ideas, rows := 0, 0, 0
	err := Records("ws", n, time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), tags, products, func(batch []core.NewRecord) error {
		for _, r := range batch {
			rows++
			for _, id := range r.TagIDs {
				perTag[id]++
			}
			if r.Contact == nil || r.Contact.EmailKey == "" || r.Title == "" || r.Description == "" {
				t.Fatalf("incomplete record %+v", r)
			}
			if r.Contact.Domain == "" {
				free++
			}
			if r.Type == core.RecordIdea {
				ideas++
			}
		}
		return nil
	})
	if err != nil || rows != n {
		t.Fatalf("%d rows, %v", rows, err)
	}
	if common := float64(perTag[tags[0]]) / n; common < 0.07 || common > 0.2 {
		t.Errorf("the common tag is on %.3f of the rows, want about a tenth", common)
	}
	if perTag[tags[len(tags)-1]] >= perTag[tags[1]] || perTag[tags[len(tags)-1]] == 0 {
		t.Errorf("the last tag on %d rows, the second on %d: want it rare but present", perTag[tags[len(tags)-1]], perTag[tags[1]])
	}
	if s := float64(free) / n; s < 0.12 || s > 0.28 {
		t.Errorf("free-mail rows: %.3f", s)
	}
	if s := float64(ideas) / n; s < 0.22 || s > 0.28 {
		t.Errorf("ideas: %.3f of the rows, want a quarter", s)
	}
}
