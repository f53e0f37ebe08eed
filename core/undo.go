package core

import (
	"context"
	"fmt"
	"time"
)

// UndoChunk is how many records one import-undo transaction deletes.
const UndoChunk = 500

// KeptRecord is a record of an undone import that stayed, and why.
type KeptRecord struct {
	ID     ID     `json:"id"`
	Reason string `json:"reason"`
}

// UndoResult is the outcome of an import undo.
type UndoResult struct {
	Run     ID           `json:"run"`
	Deleted int          `json:"deleted"`
	Kept    []KeptRecord `json:"kept"`
}

// KeptChanged is the reason a record changed since its import stays.
func KeptChanged(updated time.Time) string {
	return "changed since the import (updatedAt " + updated.UTC().Format("2006-01-02T15:04:05.000Z") + ")"
}

// UndoImport deletes the records a CSV import run created that nobody changed since, with their insights,
// insight jobs and search entries, and names the others. A record counts as unchanged while its updatedAt
// is not after the run finished: an imported row with its own created_at has the import time as updatedAt,
// so updatedAt = createdAt alone would keep every backdated row. Running it again deletes nothing more.
func (s *Service) UndoImport(ctx context.Context, run ID) (UndoResult, error) {
	r, err := s.store.UndoImport(ctx, run, func(ws ID) *Outbox { return s.outbox(ws, EventRecordDeleted) })
	if err != nil {
		return UndoResult{}, fmt.Errorf("undo import %s: %w", run, err)
	}
	return r, nil
}
