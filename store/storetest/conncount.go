package storetest

import (
	"testing"
	"time"

	"github.com/feedbridge/feedbridge/core"
)

// connectorCountTests: per-day counts of connector entries add up across flushes and processes, stay in
// their day and workspace, and the service shows today's with what it has not written yet.
var connectorCountTests = map[string]func(t *testing.T, f *fixture){
	"AddAndRead": func(t *testing.T, f *fixture) {
		a, b := f.workspace("A", 0).ID, f.workspace("B", 0).ID
		noErr(t, "add", f.st.AddConnectorCounts(f.ctx, []core.ConnectorCount{
			{Workspace: a, Name: "inbox", Day: 100, Taken: 3, Refused: 1},
			{Workspace: a, Name: "inbox", Day: 100, Taken: 2}, // the same row twice in one batch
			{Workspace: a, Name: "hook", Day: 100, Refused: 4},
			{Workspace: a, Name: "inbox", Day: 101, Taken: 7},
			{Workspace: b, Name: "inbox", Day: 100, Taken: 9},
		}))
		noErr(t, "add again", f.st.AddConnectorCounts(f.ctx, []core.ConnectorCount{{Workspace: a, Name: "inbox", Day: 100, Taken: 1, Refused: 1}}))
		got, err := f.st.ConnectorCounts(f.ctx, a, 100)
		noErr(t, "read", err)
		equal(t, "day 100 of a", got, []core.ConnectorCount{
			{Workspace: a, Name: "hook", Day: 100, Refused: 4},
			{Workspace: a, Name: "inbox", Day: 100, Taken: 6, Refused: 2},
		})
		got, err = f.st.ConnectorCounts(f.ctx, b, 101)
		noErr(t, "read", err)
		equal(t, "nothing of b that day", len(got), 0)
	},
	"ServiceShowsToday": func(t *testing.T, f *fixture) {
		a := f.workspace("A", 0).ID
		now := f.clock.Now()
		noErr(t, "status", f.svc.ReportConnector(f.ctx, core.ConnectorStatus{Workspace: a, Name: "inbox", Kind: "email", State: "running"}))
		noErr(t, "status", f.svc.ReportConnector(f.ctx, core.ConnectorStatus{Workspace: a, Name: "hook", Kind: "webhook", State: "running"}))
		today := func() map[string][2]int {
			sts, err := f.svc.Connectors(f.ctx, a)
			noErr(t, "connectors", err)
			out := map[string][2]int{}
			for _, s := range sts {
				out[s.Name] = [2]int{s.TakenToday, s.RefusedToday}
			}
			return out
		}
		f.svc.CountConnector(a, "inbox", 2, 0)
		f.svc.CountConnector(a, "inbox", 1, 1)
		equal(t, "before a flush", today(), map[string][2]int{"inbox": {3, 1}, "hook": {0, 0}})
		noErr(t, "flush", f.svc.FlushConnectorCounts(f.ctx))
		f.svc.CountConnector(a, "hook", 0, 5)
		equal(t, "flushed and pending", today(), map[string][2]int{"inbox": {3, 1}, "hook": {0, 5}})
		noErr(t, "flush", f.svc.FlushConnectorCounts(f.ctx))
		noErr(t, "an empty flush", f.svc.FlushConnectorCounts(f.ctx))
		stored, err := f.st.ConnectorCounts(f.ctx, a, core.EpochDay(now))
		noErr(t, "stored", err)
		equal(t, "stored once each", len(stored), 2)
		// The next UTC day starts from nothing.
		f.clock.Advance(24 * time.Hour)
		f.svc.CountConnector(a, "inbox", 1, 0)
		equal(t, "a new day", today(), map[string][2]int{"inbox": {1, 0}, "hook": {0, 0}})
	},
}
