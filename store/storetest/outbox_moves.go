package storetest

import (
	"encoding/json"
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

		// fb2 was merged into fb, so deleting fb deletes fb2 too: each says so, the merged one first.
		noErr(t, "delete", svc.Delete(f.ctx, ws, fb.ID))
		its := f.claimItems(core.EventQueue("s"), "w", 10, time.Minute)
		var deleted []string
		for _, it := range its {
			var ev eventBody
			noErr(t, "decode event", json.Unmarshal(it.Body, &ev))
			equal(t, "event type", ev.Type, core.EventRecordDeleted)
			deleted = append(deleted, ev.Data.Record.Title+" "+ev.Data.Record.Status)
			noErr(t, "finish event", f.st.FinishItem(f.ctx, it, "w"))
		}
		equal(t, "deleted events", deleted, []string{"fb2 " + core.StatusMerged, "fb " + core.StatusProcessed})
		wantErr(t, "delete again", svc.Delete(f.ctx, ws, fb.ID), core.ErrNotFound)
		equal(t, "nothing left", f.stats(core.EventQueue("s")), core.QueueStats{})
	},
	"BatchAndImportFinished": func(t *testing.T, f *fixture) {
		ws := f.workspace("A", 0).ID
		svc := f.eventService(core.Subscriber{Name: "s", Workspace: ws, Events: []string{core.EventRecordCreated, core.EventImportFinished}})
		res, err := svc.SubmitBatch(f.ctx, ws, []core.Submission{
			{Type: core.RecordFeedback, Title: "one", DedupKey: "k1"},
			{Type: core.RecordFeedback, Title: ""}, // invalid: no title
			{Type: core.RecordFeedback, Title: "one again", DedupKey: "k1"},
			{Type: core.RecordFeedback, Title: "two"},
		})
		noErr(t, "batch", err)
		its := f.claimItems(core.EventQueue("s"), "w", 10, time.Minute)
		got := map[string]string{}
		for _, it := range its {
			var ev eventBody
			noErr(t, "decode", json.Unmarshal(it.Body, &ev))
			got[ev.Data.Record.Title] = ev.Type
			equal(t, "keyed by record", it.Key, string(ev.Data.Record.ID))
		}
		equal(t, "one created event per created record", got,
			map[string]string{"one": core.EventRecordCreated, "two": core.EventRecordCreated})
		equal(t, "the repeat is the first record", [2]any{res[2].ID, res[2].Created}, [2]any{res[0].ID, false})

		run, err := svc.StartImport(f.ctx, ws, "csv:nightly", "a.csv")
		noErr(t, "start import", err)
		equal(t, "a running import sends nothing", f.stats(core.EventQueue("s")), core.QueueStats{Pending: 2})
		run.Status, run.Rows, run.Created = core.ImportSucceeded, 3, 2
		noErr(t, "finish import", svc.FinishImport(f.ctx, run))
		fin := f.claimItems(core.EventQueue("s"), "w", 10, time.Minute)
		if len(fin) != 1 {
			t.Fatalf("import events: %q", bodies(fin))
		}
		var ev struct {
			Type string `json:"type"`
			Data struct {
				Record    any `json:"record"`
				ImportRun struct {
					ID      core.ID `json:"id"`
					Status  string  `json:"status"`
					Created int     `json:"created"`
				} `json:"import_run"`
			} `json:"data"`
		}
		noErr(t, "decode", json.Unmarshal(fin[0].Body, &ev))
		equal(t, "import.finished", []any{ev.Type, ev.Data.Record, ev.Data.ImportRun.ID, ev.Data.ImportRun.Status, ev.Data.ImportRun.Created},
			[]any{core.EventImportFinished, nil, run.ID, core.ImportSucceeded, 2})
	},
}

var outboxUndoTests = map[string]func(t *testing.T, f *fixture){
	// UndoAndErasure: an import undo writes record.deleted for each record it deletes, as it was, and none
	// for the record it keeps; an erasure writes no event (the event list has none for it, and an event
	// would carry the erased records to every subscriber again).
	"UndoAndErasure": func(t *testing.T, f *fixture) {
		ws, other := f.workspace("A", 0).ID, f.workspace("B", 0).ID
		run, ids := f.importRun(ws, 3, "ev")
		svc := f.eventService(core.Subscriber{Name: "s", Workspace: ws, Events: core.EventTypes},
			core.Subscriber{Name: "b", Workspace: other, Events: core.EventTypes})

		f.clock.Advance(time.Second)
		got, err := svc.ForgetContact(f.ctx, ws, "c1@acme.com")
		noErr(t, "forget", err)
		equal(t, "erased", got.Records, 1)
		equal(t, "an erasure writes no event", f.stats(core.EventQueue("s")), core.QueueStats{})

		undone, err := svc.UndoImport(f.ctx, run.ID)
		noErr(t, "undo", err)
		equal(t, "deleted", undone.Deleted, 2)
		its := f.claimItems(core.EventQueue("s"), "w", 10, time.Minute)
		deleted := map[string]string{}
		for _, it := range its {
			var ev eventBody
			noErr(t, "decode event", json.Unmarshal(it.Body, &ev))
			equal(t, "event type", ev.Type, core.EventRecordDeleted)
			equal(t, "keyed by record", it.Key, string(ev.Data.Record.ID))
			deleted[string(ev.Data.Record.ID)] = ev.Data.Record.Title
		}
		equal(t, "record.deleted for each undone record", deleted,
			map[string]string{string(ids[0]): "ev row 0", string(ids[2]): "ev row 2"})
		equal(t, "nothing for another workspace", f.stats(core.EventQueue("b")), core.QueueStats{})
	},
}
