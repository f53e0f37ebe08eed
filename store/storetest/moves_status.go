package storetest

import (
	"testing"
	"time"

	"github.com/feedbridge/feedbridge/core"
)

// statusTests hold a patch of the status alone, which a store may write in one round trip, to what every
// other edit answers: the record as a read shows it, its history entry, If-Match, refusals and races.
var statusTests = map[string]func(t *testing.T, f *fixture){
	"AnswerHistoryAndNoop": func(t *testing.T, f *fixture) {
		ws := f.workspace("A", 0).ID
		idea := f.idea(ws, core.RecordIdea, "idea", "")
		fb := f.idea(ws, core.RecordFeedback, "fb", "jane@acme.com")
		f.link(ws, fb.ID, idea.ID, nil)
		idea, fb = f.read(ws, idea.ID), f.read(ws, fb.ID)
		ctx := core.WithActor(f.ctx, core.Actor{Kind: core.ActorAPIKey, Name: "triage"})
		f.clock.Advance(time.Second)

		got, err := f.svc.Update(ctx, ws, idea.ID, core.Patch{Status: str("planned")}, core.ETag(idea))
		noErr(t, "move", err)
		equal(t, "status, version, updatedAt", [3]any{got.Status, got.Version, got.UpdatedAt},
			[3]any{"Planned", idea.Version + 1, f.clock.Now()})
		equal(t, "the answer is the record as read", f.read(ws, idea.ID), got)
		equal(t, "accounts kept", got.Accounts, idea.Accounts)
		hs, err := f.svc.History(f.ctx, ws, idea.ID)
		noErr(t, "history", err)
		last := hs[len(hs)-1]
		equal(t, "history entry", [4]any{last.Action, last.Actor, last.Changes["status"], last.At},
			[4]any{core.ActionStatus, core.Actor{Kind: core.ActorAPIKey, Name: "triage"}, [2]any{"Triage", "Planned"}, f.clock.Now()})

		f.clock.Advance(time.Second)
		same, err := f.svc.Update(ctx, ws, idea.ID, core.Patch{Status: str("Planned")}, core.ETag(got))
		noErr(t, "same status", err)
		equal(t, "the same status writes nothing", same, got)
		hs2, err := f.svc.History(f.ctx, ws, idea.ID)
		noErr(t, "history", err)
		equal(t, "no history entry", len(hs2), len(hs))

		moved := f.update(ws, fb.ID, core.Patch{Status: str("archived")})
		equal(t, "feedback keeps its links", moved.Links, []core.ID{idea.ID})
		equal(t, "feedback read back", f.read(ws, fb.ID), moved)
	},
	"AnswerWithLabels": func(t *testing.T, f *fixture) {
		// A record that names an assignee, a product, tags, a company and a contact answers a move with
		// every label a read gives, and one that names none with empty labels.
		ws := f.workspace("A", 0).ID
		tags := f.lookups(ws, core.LookupTag, "Bug", "Perf")
		prod := f.lookups(ws, core.LookupProduct, "Web App")[0]
		user := f.user(ws, "Ada Lovelace")
		full := f.submit(ws, core.Submission{Type: core.RecordFeedback, Title: "labelled", CustomerEmail: "jane@acme-corp.com",
			CustomerName: "Jane Doe", ProductID: prod, AssigneeID: user, TagIDs: []core.ID{tags[1], tags[0]}}).Record
		bare := f.idea(ws, core.RecordIdea, "bare", "")
		for _, rec := range []core.Record{full, bare} {
			before, to := f.read(ws, rec.ID), "archived"
			if rec.Type == core.RecordIdea {
				to = "planned"
			}
			got, err := f.svc.Update(f.ctx, ws, rec.ID, core.Patch{Status: &to}, core.ETag(before))
			noErr(t, "move", err)
			equal(t, "moved", got.Version, before.Version+1)
			equal(t, "the answer is the record as read", got, f.read(ws, rec.ID))
			if rec.ID == full.ID {
				equal(t, "labels", [5]any{got.Assignee, got.Product, got.Tags, got.Customer, got.CustomerName},
					[5]any{"Ada Lovelace", "Web App", []string{"Perf", "Bug"}, "Acme Corp", "Jane Doe"})
			}
		}
	},
	"Refusals": func(t *testing.T, f *fixture) {
		ws, other := f.workspace("A", 0).ID, f.workspace("B", 0).ID
		idea := f.idea(ws, core.RecordIdea, "idea", "")
		dup := f.idea(ws, core.RecordIdea, "dup", "")
		_, err := f.svc.Merge(f.ctx, ws, dup.ID, idea.ID)
		noErr(t, "merge", err)
		idea = f.read(ws, idea.ID)
		stale := core.ETag(core.Record{ID: idea.ID, Version: idea.Version - 1})
		for _, c := range []struct {
			name, status, ifMatch string
			ws, id                core.ID
			want                  error
			field                 string
		}{
			{name: "stale If-Match", status: "Planned", ifMatch: stale, ws: ws, id: idea.ID, want: core.ErrPrecondition},
			{name: "another record's ETag", status: "Planned", ifMatch: core.ETag(dup), ws: ws, id: idea.ID, want: core.ErrPrecondition},
			{name: "not an ETag", status: "Planned", ifMatch: `"x"`, ws: ws, id: idea.ID, want: core.ErrPrecondition},
			{name: "status of another type, stale If-Match", status: "Released", ifMatch: stale, ws: ws, id: idea.ID, field: "status"},
			{name: "merged", status: "Planned", ws: ws, id: dup.ID, want: core.ErrMerged},
			{name: "another workspace", status: "Planned", ws: other, id: idea.ID, want: core.ErrNotFound},
			{name: "unknown", status: "Planned", ws: ws, id: core.NewID(), want: core.ErrNotFound},
		} {
			t.Run(c.name, func(t *testing.T) {
				_, err := f.svc.Update(f.ctx, c.ws, c.id, core.Patch{Status: str(c.status)}, c.ifMatch)
				if c.field != "" {
					wantField(t, c.name, err, c.field)
				} else {
					wantErr(t, c.name, err, c.want)
				}
			})
		}
		equal(t, "nothing changed", f.read(ws, idea.ID), idea)
		equal(t, "merged unchanged", f.read(ws, dup.ID).Status, core.StatusMerged)
	},
	"ConcurrentMovesOneWins": func(t *testing.T, f *fixture) {
		ws := f.workspace("A", 0).ID
		rec := f.idea(ws, core.RecordIdea, "idea", "")
		statuses := core.Statuses(core.RecordIdea)[1:]
		ps := make([]core.Patch, 2*len(statuses))
		for i := range ps {
			ps[i] = core.Patch{Status: str(statuses[i%len(statuses)])}
		}
		won, stale := f.raceUpdates(t, ws, rec.ID, core.ETag(rec), ps)
		equal(t, "winners and refused", [2]int{won, stale}, [2]int{1, 2*len(statuses) - 1})
		equal(t, "one version step", f.read(ws, rec.ID).Version, rec.Version+1)
		hs, err := f.svc.History(f.ctx, ws, rec.ID)
		noErr(t, "history", err)
		moves := 0
		for _, h := range hs {
			if h.Action == core.ActionStatus {
				moves++
			}
		}
		equal(t, "one history entry", moves, 1)
	},
}
