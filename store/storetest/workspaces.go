package storetest

import (
	"testing"
	"time"

	"github.com/feedbridge/feedbridge/core"
)

var workspaceTests = map[string]func(t *testing.T, f *fixture){
	"CreateReadList": func(t *testing.T, f *fixture) {
		created := time.Date(2026, 3, 4, 5, 6, 7, 891_000_000, time.UTC)
		w := core.Workspace{ID: core.NewID(), Name: "Acme", Plan: core.PlanBusiness, IdeaLimit: 7, CreatedAt: created}
		noErr(t, "create", f.st.CreateWorkspace(f.ctx, w))
		got, err := f.st.Workspace(f.ctx, w.ID)
		noErr(t, "read", err)
		equal(t, "workspace", got, w)
		other := f.workspace("Other", 0)
		all, err := f.st.Workspaces(f.ctx)
		noErr(t, "list", err)
		if len(all) != 2 {
			t.Fatalf("want 2 workspaces, got %+v", all)
		}
		sameSet(t, "workspaces", []core.ID{all[0].ID, all[1].ID}, []core.ID{w.ID, other.ID})
		_, err = f.st.Workspace(f.ctx, core.NewID())
		wantErr(t, "unknown workspace", err, core.ErrNotFound)
		wantErr(t, "duplicate id", f.st.CreateWorkspace(f.ctx, w), core.ErrConflict)
	},
	"Update": func(t *testing.T, f *fixture) {
		w := f.workspace("Acme", 3)
		f.submit(w.ID, core.Submission{Type: core.RecordIdea, Title: "counted", CountsAgainstLimit: true})
		upd := w
		upd.Name, upd.Plan, upd.IdeaLimit, upd.Suspended, upd.IdeasUsed = "Acme 2", core.PlanBusiness, 0, true, 99
		noErr(t, "update", f.st.UpdateWorkspace(f.ctx, upd))
		got, err := f.st.Workspace(f.ctx, w.ID)
		noErr(t, "read", err)
		upd.IdeasUsed = 1 // the count belongs to record creation, not to updates
		equal(t, "updated workspace", got, upd)
		wantErr(t, "update unknown", f.st.UpdateWorkspace(f.ctx, core.Workspace{ID: core.NewID(), Name: "x", Plan: core.PlanPro}), core.ErrNotFound)
	},
	"KeysByHashAndRevocation": func(t *testing.T, f *fixture) {
		a, b := f.workspace("A", 0), f.workspace("B", 0)
		ka, secret, err := f.svc.CreateKey(f.ctx, a.ID, "ci")
		noErr(t, "create key", err)
		kb, _, err := f.svc.CreateKey(f.ctx, b.ID, "other")
		noErr(t, "create key b", err)

		k, ws, err := f.st.KeyByHash(f.ctx, core.HashAPIKey(secret))
		noErr(t, "key by hash", err)
		equal(t, "key", k, ka)
		equal(t, "key workspace", ws.ID, a.ID)
		authWS, _, err := f.svc.Authenticate(f.ctx, secret)
		noErr(t, "authenticate", err)
		equal(t, "authenticated workspace", authWS.ID, a.ID)

		keys, err := f.st.APIKeys(f.ctx, a.ID)
		noErr(t, "list keys", err)
		equal(t, "keys of A", keys, []core.APIKey{ka})

		_, _, err = f.st.KeyByHash(f.ctx, core.HashAPIKey(secret+"x"))
		wantErr(t, "unknown hash", err, core.ErrNotFound)

		at := f.clock.Now()
		noErr(t, "revoke", f.st.RevokeAPIKey(f.ctx, ka.ID, at))
		_, _, err = f.st.KeyByHash(f.ctx, ka.Hash)
		wantErr(t, "revoked key", err, core.ErrNotFound)
		_, _, err = f.svc.Authenticate(f.ctx, secret)
		wantErr(t, "authenticate revoked", err, core.ErrUnauthorized)
		noErr(t, "revoke again", f.st.RevokeAPIKey(f.ctx, ka.ID, at.Add(time.Hour)))
		keys, err = f.st.APIKeys(f.ctx, a.ID)
		noErr(t, "list keys", err)
		if len(keys) != 1 || !keys[0].RevokedAt.Equal(at) {
			t.Fatalf("revoked key keeps its first revocation time %v: %+v", at, keys)
		}
		if _, _, err := f.st.KeyByHash(f.ctx, kb.Hash); err != nil {
			t.Fatalf("revoking A's key touched B's: %v", err)
		}
		wantErr(t, "revoke unknown", f.st.RevokeAPIKey(f.ctx, core.NewID(), at), core.ErrNotFound)
	},
	"KeyForUnknownWorkspace": func(t *testing.T, f *fixture) {
		k := core.APIKey{ID: core.NewID(), Workspace: core.NewID(), Name: "x", Prefix: "fbk_abcd", Hash: core.HashAPIKey("x"), CreatedAt: f.clock.Now()}
		wantErr(t, "key of unknown workspace", f.st.CreateAPIKey(f.ctx, k), core.ErrNotFound)
	},
	"KeysScoped": func(t *testing.T, f *fixture) {
		a, b := f.workspace("A", 0), f.workspace("B", 0)
		_, _, err := f.svc.CreateKey(f.ctx, a.ID, "a")
		noErr(t, "create key", err)
		keys, err := f.st.APIKeys(f.ctx, b.ID)
		noErr(t, "list keys", err)
		equal(t, "B's keys", len(keys), 0)
	},
}
