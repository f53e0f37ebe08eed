package storetest

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/feedbridge/feedbridge/core"
)

// importRun writes n feedback records through the bulk path as one finished import run, with insights
// for the first, and returns the run and the records' ids.
func (f *fixture) importRun(ws core.ID, n int, key string) (core.ImportRun, []core.ID) {
	f.t.Helper()
	run, err := f.svc.StartImport(f.ctx, ws, "cli", "rows.csv")
	noErr(f.t, "start import", err)
	subs := make([]core.Submission, n)
	for i := range subs {
		subs[i] = core.Submission{Type: core.RecordFeedback, Title: fmt.Sprintf("%s row %d", key, i),
			Description: key + " imported text", CustomerEmail: fmt.Sprintf("c%d@acme.com", i), PlainText: true,
			DedupKey: fmt.Sprintf("csv:%s:%d", key, i), ImportRun: run.ID,
			CreatedAt: time.Date(2025, 6, 1, 0, 0, i, 0, time.UTC)} // backdated, as rows with created_at are
	}
	res, err := f.svc.SubmitBatch(f.ctx, ws, subs)
	noErr(f.t, "bulk", err)
	ids := make([]core.ID, n)
	for i, r := range res {
		if r.Err != nil {
			f.t.Fatalf("row %d: %v", i, r.Err)
		}
		ids[i] = r.ID
	}
	run.Status, run.Rows, run.Created = core.ImportSucceeded, n, n
	noErr(f.t, "finish import", f.svc.FinishImport(f.ctx, run))
	return run, ids
}

var undoTests = map[string]func(t *testing.T, f *fixture){
	"DeletesUnchangedAndNamesTheRest": func(t *testing.T, f *fixture) {
		ws, other := f.workspace("A", 0).ID, f.workspace("B", 0).ID
		n := core.UndoChunk + 3
		run, ids := f.importRun(ws, n, "undo")
		_, theirs := f.importRun(other, 2, "undo")
		manual := f.feedback(ws, "undo typed by hand", "undo imported text")
		// The first record gets its insights; every other job stays queued.
		for _, j := range f.claim("w", 1000, time.Minute) {
			if j.RecordID == ids[0] {
				noErr(t, "complete", f.st.CompleteInsightJob(f.ctx, j, "w", sampleInsights()[:1]))
			}
		}
		_, err := f.st.ReleaseInsightJobs(f.ctx, "w", nil)
		noErr(t, "release", err)
		// A record changed after the import stays: here an erasure of its customer changes it.
		f.clock.Advance(time.Second)
		f.forget(ws, "c1@acme.com")
		before := f.companyPages(ws, "")

		got, err := f.svc.UndoImport(f.ctx, run.ID)
		noErr(t, "undo", err)
		equal(t, "deleted", got.Deleted, n-1)
		if len(got.Kept) != 1 || got.Kept[0].ID != ids[1] || !strings.Contains(got.Kept[0].Reason, "changed since the import") {
			t.Fatalf("kept %+v", got.Kept)
		}
		for _, id := range []core.ID{ids[0], ids[n-1]} {
			_, err := f.st.Record(f.ctx, ws, id)
			wantErr(t, "deleted record", err, core.ErrNotFound)
			ins, err := f.st.Insights(f.ctx, ws, id)
			noErr(t, "insights", err)
			equal(t, "insights of a deleted record", len(ins), 0)
		}
		f.record(ws, ids[1])
		f.record(ws, manual.ID)
		sameSet(t, "search", f.searchIDs(ws, "imported text"), []core.ID{ids[1], manual.ID})
		sameSet(t, "other workspace's run", f.searchIDs(other, "imported text"), theirs)
		after := f.companyPages(ws, "")
		equal(t, "acme's count", after[0].FeedbackCount, before[0].FeedbackCount-(n-1))
		depth, err := f.st.InsightQueueDepth(f.ctx)
		noErr(t, "queue depth", err)
		equal(t, "queued jobs left", depth, 1+1+2) // the kept record's, the hand-typed one's, the other run's two

		again, err := f.svc.UndoImport(f.ctx, run.ID)
		noErr(t, "undo again", err)
		equal(t, "undo again deletes nothing", again.Deleted, 0)
		equal(t, "and names the same", again.Kept, got.Kept)
		// The rows imported again are new records.
		res, err := f.svc.SubmitBatch(f.ctx, ws, []core.Submission{{Type: core.RecordFeedback, Title: "undo row 0",
			DedupKey: "csv:undo:0"}})
		noErr(t, "reimport", err)
		equal(t, "reimported row is new", res[0].Created, true)
	},
	"UnknownAndRunning": func(t *testing.T, f *fixture) {
		ws := f.workspace("A", 0).ID
		_, err := f.svc.UndoImport(f.ctx, core.NewID())
		wantErr(t, "unknown run", err, core.ErrNotFound)
		run, err := f.svc.StartImport(f.ctx, ws, "cli", "rows.csv")
		noErr(t, "start", err)
		_, err = f.svc.UndoImport(f.ctx, run.ID)
		wantErr(t, "running run", err, core.ErrConflict)
	},
}
