package storetest

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/feedbridge/feedbridge/core"
)

// eventBody is an event as a subscriber reads it, with the test's record view.
type eventBody struct {
	ID        core.ID   `json:"id"`
	Type      string    `json:"type"`
	Workspace core.ID   `json:"workspace"`
	CreatedAt time.Time `json:"created_at"`
	Data      struct {
		Record struct {
			ID     core.ID `json:"id"`
			Title  string  `json:"title"`
			Status string  `json:"status"`
		} `json:"record"`
		Changes map[string]struct {
			From any `json:"from"`
			To   any `json:"to"`
		} `json:"changes"`
	} `json:"data"`
}

// eventService is a service over the fixture's store whose event bodies show a record as id, title and
// status; a record titled "poison" cannot be shown, so its change cannot write its event.
func (f *fixture) eventService(subs ...core.Subscriber) *core.Service {
	svc := core.NewService(f.st, core.Options{Now: f.clock.Now, RecordView: func(r core.Record) any {
		if r.Title == "poison" {
			return func() {}
		}
		return map[string]any{"id": r.ID, "title": r.Title, "status": r.Status}
	}})
	svc.SetSubscribers(subs)
	return svc
}

// nextEvent claims the one claimable event of subscriber sub, decodes it and finishes it.
func (f *fixture) nextEvent(sub string) (core.QueueItem, eventBody) {
	f.t.Helper()
	its := f.claimItems(core.EventQueue(sub), "w", 10, time.Minute)
	if len(its) != 1 {
		f.t.Fatalf("claimed %d events of %s, want 1: %q", len(its), sub, bodies(its))
	}
	var ev eventBody
	noErr(f.t, "decode event", json.Unmarshal(its[0].Body, &ev))
	noErr(f.t, "finish event", f.st.FinishItem(f.ctx, its[0], "w"))
	return its[0], ev
}

var allRecordEvents = []string{core.EventRecordCreated, core.EventRecordUpdated, core.EventRecordStatusChanged}

var outboxTests = map[string]func(t *testing.T, f *fixture){
	"CreatedOnlyForSubscribers": func(t *testing.T, f *fixture) {
		a, b := f.workspace("A", 0).ID, f.workspace("B", 0).ID
		svc := f.eventService(
			core.Subscriber{Name: "all", Workspace: a, Events: allRecordEvents, RetryFor: time.Hour},
			core.Subscriber{Name: "created", Workspace: a, Events: []string{core.EventRecordCreated}},
			core.Subscriber{Name: "b-status", Workspace: b, Events: []string{core.EventRecordStatusChanged}})
		res, err := svc.Submit(f.ctx, a, core.Submission{Type: core.RecordFeedback, Title: "Export is slow", DedupKey: "t-1"})
		noErr(t, "submit", err)
		rec := res.Record

		it, ev := f.nextEvent("all")
		other, ev2 := f.nextEvent("created")
		equal(t, "one event id for every subscriber", other.ID, it.ID)
		equal(t, "item", [4]string{it.Kind, string(it.Workspace), it.Key, string(ev.ID)},
			[4]string{core.EventKind, string(a), string(rec.ID), string(it.ID)})
		equal(t, "retry_for", [2]time.Duration{it.RetryFor, other.RetryFor}, [2]time.Duration{time.Hour, core.DefaultRetryFor})
		equal(t, "body", [4]string{ev.Type, string(ev.Workspace), string(ev.Data.Record.ID), ev.Data.Record.Title},
			[4]string{core.EventRecordCreated, string(a), string(rec.ID), "Export is slow"})
		equal(t, "created_at is the change's time", ev.CreatedAt.Equal(f.clock.Now()), true)
		equal(t, "same body for both", ev2, ev)

		_, err = svc.Submit(f.ctx, a, core.Submission{Type: core.RecordFeedback, Title: "Export is slow", DedupKey: "t-1"})
		noErr(t, "repeat", err)
		_, err = svc.Submit(f.ctx, a, core.Submission{Type: core.RecordFeedback, Title: "x", TagIDs: []core.ID{core.NewID()}})
		if err == nil {
			t.Fatal("an unknown tag was accepted")
		}
		_, err = svc.Submit(f.ctx, b, core.Submission{Type: core.RecordFeedback, Title: "In B"})
		noErr(t, "submit in B", err)
		for _, q := range []string{"all", "created", "b-status"} {
			equal(t, "no further event for "+q, f.stats(core.EventQueue(q)), core.QueueStats{})
		}
	},
	"EditsInOrderPerRecord": func(t *testing.T, f *fixture) {
		ws := f.workspace("A", 0).ID
		svc := f.eventService(core.Subscriber{Name: "s", Workspace: ws, Events: allRecordEvents})
		res, err := svc.Submit(f.ctx, ws, core.Submission{Type: core.RecordFeedback, Title: "One"})
		noErr(t, "submit", err)
		id := res.Record.ID
		for _, p := range []core.Patch{
			{Title: str("Two")},
			{Status: str(core.StatusProcessed)},
			{Title: str("Three"), Status: str("Archived")},
		} {
			_, err := svc.Update(f.ctx, ws, id, p, "")
			noErr(t, "update", err)
		}
		res2, err := svc.Submit(f.ctx, ws, core.Submission{Type: core.RecordFeedback, Title: "Other"})
		noErr(t, "submit other", err)

		first := f.claimItems(core.EventQueue("s"), "w", 10, time.Minute)
		equal(t, "each record's first event only", []string{first[0].Key, first[1].Key}, []string{string(id), string(res2.Record.ID)})
		noErr(t, "finish", f.st.FinishItem(f.ctx, first[0], "w"))
		noErr(t, "finish", f.st.FinishItem(f.ctx, first[1], "w"))

		want := []struct {
			typ, title, status string
			changed            []string
		}{
			{core.EventRecordUpdated, "Two", core.StatusTriage, []string{"title"}},
			{core.EventRecordStatusChanged, "Two", core.StatusProcessed, []string{"status"}},
			{core.EventRecordStatusChanged, "Three", "Archived", []string{"status", "title"}},
			{core.EventRecordUpdated, "Three", "Archived", []string{"status", "title"}},
		}
		for _, w := range want {
			_, ev := f.nextEvent("s")
			equal(t, "event", []any{ev.Type, ev.Data.Record.Title, ev.Data.Record.Status, sortedKeys(ev.Data.Changes)},
				[]any{w.typ, w.title, w.status, w.changed})
		}
		equal(t, "nothing left", len(f.claimItems(core.EventQueue("s"), "w", 10, time.Minute)), 0)
	},
	"ChangeWithoutItsEventIsNotWritten": func(t *testing.T, f *fixture) {
		ws := f.workspace("A", 0).ID
		svc := f.eventService(core.Subscriber{Name: "s", Workspace: ws, Events: allRecordEvents})
		_, err := svc.Submit(f.ctx, ws, core.Submission{Type: core.RecordFeedback, Title: "poison"})
		if err == nil {
			t.Fatal("a create whose event could not be written succeeded")
		}
		equal(t, "no record", len(f.records(ws, core.RecordFeedback)), 0)
		res, err := svc.Submit(f.ctx, ws, core.Submission{Type: core.RecordFeedback, Title: "fine"})
		noErr(t, "submit", err)
		f.nextEvent("s")
		if _, err := svc.Update(f.ctx, ws, res.Record.ID, core.Patch{Title: str("poison")}, ""); err == nil {
			t.Fatal("an edit whose event could not be written succeeded")
		}
		after := f.read(ws, res.Record.ID)
		equal(t, "edit not written", [2]any{after.Title, after.Version}, [2]any{"fine", res.Record.Version})
		equal(t, "no event", f.stats(core.EventQueue("s")), core.QueueStats{})
	},
	"RemovedSubscriberKeepsItsEvents": func(t *testing.T, f *fixture) {
		ws := f.workspace("A", 0).ID
		keep := core.Subscriber{Name: "keep", Workspace: ws, Events: allRecordEvents}
		svc := f.eventService(keep, core.Subscriber{Name: "gone", Workspace: ws, Events: allRecordEvents})
		_, err := svc.Submit(f.ctx, ws, core.Submission{Type: core.RecordFeedback, Title: "before"})
		noErr(t, "submit", err)
		svc.SetSubscribers([]core.Subscriber{keep})
		_, err = svc.Submit(f.ctx, ws, core.Submission{Type: core.RecordFeedback, Title: "after"})
		noErr(t, "submit", err)
		equal(t, "the removed one's event is kept, and no new one", f.stats(core.EventQueue("gone")), core.QueueStats{Pending: 1})
		equal(t, "the kept one has both", f.stats(core.EventQueue("keep")), core.QueueStats{Pending: 2})
	},
}
