package storetest

import (
	"testing"
	"time"

	"github.com/feedbridge/feedbridge/core"
)

// drain claims and finishes every claimable event of sub, and returns how many.
func (f *fixture) drain(sub string) int {
	f.t.Helper()
	its := f.claimItems(core.EventQueue(sub), "w", 50, time.Minute)
	for _, it := range its {
		noErr(f.t, "finish", f.st.FinishItem(f.ctx, it, "w"))
	}
	return len(its)
}

var outboxMoveTests = map[string]func(t *testing.T, f *fixture){
	"LinksMergesAndDeletes": func(t *testing.T, f *fixture) {
		ws := f.workspace("A", 0).ID
		svc := f.eventService(core.Subscriber{Name: "s", Workspace: ws, Events: core.EventTypes})
		submit := func(typ core.RecordType, title string) core.Record {
			res, err := svc.Submit(f.ctx, ws, core.Submission{Type: typ, Title: title})
			noErr(t, "submit "+title, err)
			return res.Record
		}
		fb, idea, fb2 := submit(core.RecordFeedback, "fb"), submit(core.RecordIdea, "idea"), submit(core.RecordFeedback, "fb2")
		equal(t, "three records, three created events at once", f.drain("s"), 3)

		type change struct{ from, to any }
		check := func(what, typ string, rec core.Record, title, status string, changes map[string]change) {
			t.Helper()
			it, ev := f.nextEvent("s")
			got := map[string]change{}
			for k, v := range ev.Data.Changes {
				got[k] = change{v.From, v.To}
			}
			if changes == nil {
				changes = map[string]change{}
			}
			equal(t, what, []any{ev.Type, it.Key, ev.Data.Record.ID, ev.Data.Record.Title, ev.Data.Record.Status, got},
				[]any{typ, string(rec.ID), rec.ID, title, status, changes})
		}

		_, err := svc.Link(f.ctx, ws, fb.ID, idea.ID, nil)
		noErr(t, "link", err)
		check("linked", core.EventRecordLinked, fb, "fb", core.StatusProcessed, map[string]change{
			"links": {nil, string(idea.ID)}, "status": {core.StatusTriage, core.StatusProcessed}})
		_, err = svc.Link(f.ctx, ws, fb.ID, idea.ID, nil)
		noErr(t, "link again", err)
		equal(t, "a link that changes nothing sends nothing", f.stats(core.EventQueue("s")), core.QueueStats{})

		noErr(t, "unlink", svc.Unlink(f.ctx, ws, fb.ID, idea.ID))
		check("unlinked", core.EventRecordUnlinked, fb, "fb", core.StatusProcessed, map[string]change{"links": {string(idea.ID), nil}})
		wantErr(t, "unlink what is not linked", svc.Unlink(f.ctx, ws, fb.ID, idea.ID), core.ErrNotFound)

		_, err = svc.Merge(f.ctx, ws, fb2.ID, fb.ID)
		noErr(t, "merge", err)
		check("merged", core.EventRecordMerged, fb2, "fb2", core.StatusMerged, map[string]change{
			"status": {core.StatusTriage, core.StatusMerged}, "merged_into": {nil, string(fb.ID)}})

		noErr(t, "delete", svc.Delete(f.ctx, ws, fb.ID))
		check("deleted", core.EventRecordDeleted, fb, "fb", core.StatusProcessed, nil)
		wantErr(t, "delete again", svc.Delete(f.ctx, ws, fb.ID), core.ErrNotFound)
		equal(t, "nothing left", f.stats(core.EventQueue("s")), core.QueueStats{})
	},
}
