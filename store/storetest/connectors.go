package storetest

import (
	"testing"
	"time"

	"github.com/feedbridge/feedbridge/core"
)

var connectorTests = map[string]func(t *testing.T, f *fixture){
	"Checkpoints": func(t *testing.T, f *fixture) {
		a, b := f.workspace("A", 0).ID, f.workspace("B", 0).ID
		cp, err := f.st.Checkpoint(f.ctx, a, "imap:support")
		noErr(t, "read", err)
		equal(t, "none yet", cp, "")
		noErr(t, "set", f.st.SetCheckpoint(f.ctx, a, core.Checkpoint{Name: "imap:support", Value: "uid:5"}))
		noErr(t, "overwrite", f.st.SetCheckpoint(f.ctx, a, core.Checkpoint{Name: "imap:support", Value: "uid:9"}))
		cp, err = f.st.Checkpoint(f.ctx, a, "imap:support")
		noErr(t, "read", err)
		equal(t, "latest value", cp, "uid:9")
		cp, err = f.st.Checkpoint(f.ctx, b, "imap:support")
		noErr(t, "read b", err)
		equal(t, "other workspace", cp, "")
		wantErr(t, "unknown workspace", f.st.SetCheckpoint(f.ctx, core.NewID(), core.Checkpoint{Name: "x", Value: "y"}), core.ErrNotFound)
	},
	"Statuses": func(t *testing.T, f *fixture) {
		a, b := f.workspace("A", 0).ID, f.workspace("B", 0).ID
		now := f.clock.Now()
		slack := core.ConnectorStatus{Workspace: a, Name: "acme-slack", Kind: "slack", State: "running", LastSuccessAt: now, UpdatedAt: now}
		mail := core.ConnectorStatus{Workspace: a, Name: "inbox", Kind: "email", State: "error", LastError: "login failed", UpdatedAt: now}
		noErr(t, "put", f.st.PutConnectorStatus(f.ctx, mail))
		noErr(t, "put", f.st.PutConnectorStatus(f.ctx, slack))
		mail.State, mail.LastError, mail.LastSuccessAt, mail.UpdatedAt = "running", "", now.Add(time.Minute), now.Add(time.Minute)
		noErr(t, "update", f.st.PutConnectorStatus(f.ctx, mail))
		got, err := f.st.ConnectorStatuses(f.ctx, a)
		noErr(t, "list", err)
		equal(t, "statuses by name", got, []core.ConnectorStatus{slack, mail})
		got, err = f.st.ConnectorStatuses(f.ctx, b)
		noErr(t, "list b", err)
		equal(t, "other workspace", len(got), 0)
		wantErr(t, "unknown workspace", f.st.PutConnectorStatus(f.ctx, core.ConnectorStatus{Workspace: core.NewID(), Name: "x", Kind: "csv", State: "idle", UpdatedAt: now}), core.ErrNotFound)
	},
	// Refusals add up over writers (replicas, restarts): each write carries what its writer refused since its
	// last write; the last reason is the newest any writer reported, whatever the order of the writes.
	"StatusRefusals": func(t *testing.T, f *fixture) {
		a := f.workspace("A", 0).ID
		now := f.clock.Now()
		st := core.ConnectorStatus{Workspace: a, Name: "hooks", Kind: "webhook", State: "running", UpdatedAt: now}
		noErr(t, "put none", f.st.PutConnectorStatus(f.ctx, st))
		one := st
		one.Refused, one.LastRefused, one.LastRefusedAt = 2, "invalid signature", now.Add(2*time.Minute)
		noErr(t, "put 2", f.st.PutConnectorStatus(f.ctx, one))
		other := st // another replica, whose last refusal is older
		other.Refused, other.LastRefused, other.LastRefusedAt = 3, "body too large", now.Add(time.Minute)
		noErr(t, "put 3", f.st.PutConnectorStatus(f.ctx, other))
		noErr(t, "put nothing new", f.st.PutConnectorStatus(f.ctx, st))
		got, err := f.st.ConnectorStatuses(f.ctx, a)
		noErr(t, "list", err)
		want := one
		want.Refused = 5
		equal(t, "summed, newest reason", got, []core.ConnectorStatus{want})
		newer := st
		newer.Refused, newer.LastRefused, newer.LastRefusedAt = 1, "token missing", now.Add(3*time.Minute)
		noErr(t, "put newer", f.st.PutConnectorStatus(f.ctx, newer))
		got, err = f.st.ConnectorStatuses(f.ctx, a)
		noErr(t, "list", err)
		want = newer
		want.Refused = 6
		equal(t, "newer reason", got, []core.ConnectorStatus{want})
	},
	"ImportRuns": func(t *testing.T, f *fixture) {
		a, b := f.workspace("A", 0).ID, f.workspace("B", 0).ID
		first, err := f.svc.StartImport(f.ctx, a, "nightly", "export.csv")
		noErr(t, "start", err)
		f.clock.Advance(time.Minute)
		second, err := f.svc.StartImport(f.ctx, a, "cli", "other.csv")
		noErr(t, "start", err)
		first.Status, first.Rows, first.Created, first.Duplicates, first.Failed = core.ImportSucceeded, 10, 7, 2, 1
		noErr(t, "finish", f.svc.FinishImport(f.ctx, first))
		first.FinishedAt = f.clock.Now()
		got, err := f.st.ImportRun(f.ctx, a, first.ID)
		noErr(t, "read", err)
		equal(t, "finished run", got, first)
		runs, err := f.st.ImportRuns(f.ctx, a)
		noErr(t, "list", err)
		equal(t, "newest first", runs, []core.ImportRun{second, first})

		_, err = f.st.ImportRun(f.ctx, b, first.ID)
		wantErr(t, "run of another workspace", err, core.ErrNotFound)
		runs, err = f.st.ImportRuns(f.ctx, b)
		noErr(t, "list b", err)
		equal(t, "other workspace", len(runs), 0)
		hijack := first
		hijack.Workspace, hijack.Status, hijack.Error = b, core.ImportFailed, "overwritten"
		wantErr(t, "update through another workspace", f.st.PutImportRun(f.ctx, hijack), core.ErrNotFound)
		got, err = f.st.ImportRun(f.ctx, a, first.ID)
		noErr(t, "read", err)
		equal(t, "untouched", got, first)
	},
}
