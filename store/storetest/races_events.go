package storetest

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/feedbridge/feedbridge/core"
)

// dedupRaceCase is one way a record can be created, raced by several writers with the same key: each
// reaches a different write path of a store (no customer, a known one, a new one, referenced ids, an
// idempotency key, a bulk write).
type dedupRaceCase struct {
	name  string
	sub   func(key string, tags []core.ID) core.Submission
	batch bool // every other writer goes through SubmitBatch
}

var dedupRaceCases = []dedupRaceCase{
	{name: "no customer", sub: func(key string, _ []core.ID) core.Submission {
		return raceSubmission(key)
	}},
	{name: "known customer", sub: func(key string, tags []core.ID) core.Submission {
		s := raceSubmission(key)
		s.CustomerEmail, s.CustomerName = "known@acme.com", "Known"
		return s
	}},
	{name: "new customer", sub: func(key string, _ []core.ID) core.Submission {
		s := raceSubmission(key)
		s.CustomerEmail, s.CustomerName = key+"@"+key+"-co.com", "New"
		return s
	}},
	{name: "tagged", sub: func(key string, tags []core.ID) core.Submission {
		s := raceSubmission(key)
		s.TagIDs = tags
		return s
	}},
	{name: "idempotency key", sub: func(key string, _ []core.ID) core.Submission {
		s := raceSubmission(key)
		s.Idempotency = &core.Idempotency{Key: "idem-" + key, Fingerprint: "fp"}
		return s
	}},
	{name: "bulk", batch: true, sub: func(key string, _ []core.ID) core.Submission {
		s := raceSubmission(key)
		s.CustomerEmail = key + "@bulk-co.com"
		return s
	}},
}

func raceSubmission(key string) core.Submission {
	return core.Submission{Type: core.RecordFeedback, Title: "from " + key, Description: "needs insights",
		DedupKey: key}
}

// sameKeyWritesOneEvent races writers with one dedup key in a workspace with an event subscriber, several
// rounds per write path: whichever writer loses writes no side row, so each key ends with one record, one
// record.created event and one insight job, all of the winner's, and a history of its creation alone.
func sameKeyWritesOneEvent(t *testing.T, f *fixture) {
	const writers, rounds = 8, 4
	for _, c := range dedupRaceCases {
		ws := f.workspace(c.name, 0).ID
		sub := "s-" + string(ws)
		svc := f.eventService(core.Subscriber{Name: sub, Workspace: ws, Events: []string{core.EventRecordCreated}})
		tags := f.lookups(ws, core.LookupTag, "Perf")
		winners := map[core.ID]bool{}
		if c.name == "known customer" {
			res, err := svc.Submit(f.ctx, ws, core.Submission{Type: core.RecordFeedback, Title: "first",
				Description: "needs insights", CustomerEmail: "known@acme.com", CustomerName: "Known"})
			noErr(t, "known customer's first record", err)
			winners[res.Record.ID] = true
		}
		for r := range rounds {
			key := fmt.Sprintf("k%d", r)
			s := c.sub(key, tags)
			ids := make([]core.ID, writers)
			created := make([]bool, writers)
			errs := make([]error, writers)
			parallel(writers, func(i int) {
				if c.batch && i%2 == 1 {
					out, err := svc.SubmitBatch(f.ctx, ws, []core.Submission{s})
					if errs[i] = err; err == nil {
						ids[i], created[i], errs[i] = out[0].ID, out[0].Created, out[0].Err
					}
					return
				}
				res, err := svc.Submit(f.ctx, ws, s)
				ids[i], created[i], errs[i] = res.Record.ID, res.Created, err
			})
			n := 0
			for i := range writers {
				noErr(t, c.name+": submit", errs[i])
				equal(t, c.name+": every answer names the same record", ids[i], ids[0])
				if created[i] {
					n++
				}
			}
			equal(t, c.name+": created once", n, 1)
			winners[ids[0]] = true
		}
		f.checkOneOfEach(t, c.name, ws, sub, winners, svc)
	}
}

// checkOneOfEach checks that ws holds exactly the records of winners and
// that each winner has one record.created event on sub, one insight job and only its creation in its
// history; an event or job of a record that was not written would show as one too many.
func (f *fixture) checkOneOfEach(t *testing.T, name string, ws core.ID, sub string, winners map[core.ID]bool, svc *core.Service) {
	t.Helper()
	stored := map[core.ID]bool{}
	for _, r := range f.records(ws, core.RecordFeedback) {
		stored[r.ID] = true
	}
	equal(t, name+": records stored", len(stored), len(winners))
	for id := range winners {
		if !stored[id] {
			t.Fatalf("%s: winner %s not stored", name, id)
		}
	}
	events := map[core.ID]int{}
	for _, it := range f.claimItems(core.EventQueue(sub), "w", 1000, time.Minute) {
		var ev eventBody
		noErr(t, "decode event", json.Unmarshal(it.Body, &ev))
		equal(t, name+": event type", ev.Type, core.EventRecordCreated)
		equal(t, name+": event keyed by its record", it.Key, string(ev.Data.Record.ID))
		events[ev.Data.Record.ID]++
	}
	jobs := map[core.ID]int{}
	for _, j := range f.claim("w", 1000, time.Minute) {
		if j.Workspace == ws {
			jobs[j.RecordID]++
		}
	}
	equal(t, name+": records with a record.created event", len(events), len(stored))
	equal(t, name+": one insight job per record", len(jobs), len(stored))
	for id := range stored {
		equal(t, name+": record.created events of "+string(id), events[id], 1)
		equal(t, name+": insight jobs of "+string(id), jobs[id], 1)
		hs, err := f.st.History(f.ctx, ws, id)
		noErr(t, "stored history", err)
		equal(t, name+": stored history rows of a new record", len(hs), 0)
		full, err := svc.History(f.ctx, ws, id)
		noErr(t, "history", err)
		equal(t, name+": history of "+string(id), len(full), 1)
		equal(t, name+": history entry", full[0].Action, core.ActionCreated)
	}
}
