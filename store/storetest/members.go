package storetest

import (
	"errors"
	"testing"
	"time"

	"github.com/feedbridge/feedbridge/core"
)

const goodPassword = "correct horse battery"

// member adds a member through the service and returns it with its first sign-in link token.
func (f *fixture) member(ws core.ID, email string, role core.Role) (core.Member, string) {
	f.t.Helper()
	m, token, err := f.svc.AddMember(f.ctx, ws, email, role)
	noErr(f.t, "add member "+email, err)
	return m, token
}

// signedUp adds a member who has chosen goodPassword and returns it with its session token.
func (f *fixture) signedUp(ws core.ID, email string, role core.Role) (core.Member, string) {
	f.t.Helper()
	m, link := f.member(ws, email, role)
	_, sess, err := f.svc.UseSignInLink(f.ctx, link, goodPassword)
	noErr(f.t, "use link of "+email, err)
	return m, sess
}

var memberTests = map[string]func(t *testing.T, f *fixture){
	"AddListFindRemove": func(t *testing.T, f *fixture) {
		w, other := f.workspace("Acme", 0), f.workspace("Other", 0)
		b, _ := f.member(w.ID, "Bob@Acme.com", core.RoleEditor)
		a, _ := f.member(w.ID, "alice@acme.com", core.RoleAdmin)
		f.member(other.ID, "carol@other.com", core.RoleViewer)
		equal(t, "stored address", b.Email, "bob@acme.com")
		got, err := f.st.Members(f.ctx, w.ID)
		noErr(t, "members", err)
		equal(t, "members by address", got, []core.Member{a, b})
		byMail, err := f.st.MemberByEmail(f.ctx, "bob@acme.com")
		noErr(t, "by email", err)
		equal(t, "by email", byMail, b)
		_, _, err = f.svc.AddMember(f.ctx, other.ID, "BOB@acme.com", core.RoleViewer)
		var ve *core.ValidationError
		if !errors.As(err, &ve) || ve.Field != "email" {
			t.Fatalf("an address in use in another workspace: %v", err)
		}
		_, _, err = f.svc.AddMember(f.ctx, core.NewID(), "dan@acme.com", core.RoleViewer)
		wantErr(t, "absent workspace", err, core.ErrNotFound)
		_, _, err = f.svc.AddMember(f.ctx, w.ID, "eve@acme.com", core.Role("owner"))
		if !errors.As(err, &ve) || ve.Field != "role" {
			t.Fatalf("unknown role: %v", err)
		}
		changed, err := f.svc.SetMemberRole(f.ctx, w.ID, b.ID, "Viewer")
		noErr(t, "set role", err)
		equal(t, "changed role", changed.Role, core.RoleViewer)
		stored, err := f.st.Member(f.ctx, b.ID)
		noErr(t, "member after set role", err)
		equal(t, "stored role", stored.Role, core.RoleViewer)
		_, err = f.svc.SetMemberRole(f.ctx, other.ID, b.ID, core.RoleAdmin)
		wantErr(t, "set role from another workspace", err, core.ErrNotFound)
		if _, err = f.svc.SetMemberRole(f.ctx, w.ID, b.ID, "owner"); !errors.As(err, &ve) || ve.Field != "role" {
			t.Fatalf("set an unknown role: %v", err)
		}
		wantErr(t, "set role of an absent member", f.st.SetMemberRole(f.ctx, core.NewID(), core.RoleAdmin), core.ErrNotFound)
		_, err = f.svc.WorkspaceMember(f.ctx, other.ID, b.ID)
		wantErr(t, "a member seen from another workspace", err, core.ErrNotFound)
		b.Role = core.RoleViewer
		noErr(t, "remove", f.svc.RemoveMember(f.ctx, b.ID))
		wantErr(t, "removed member", errOf(f.st.Member(f.ctx, b.ID)), core.ErrNotFound)
		wantErr(t, "remove twice", f.svc.RemoveMember(f.ctx, b.ID), core.ErrNotFound)
		rest, err := f.st.Members(f.ctx, w.ID)
		noErr(t, "members after remove", err)
		equal(t, "members after remove", rest, []core.Member{a})
	},
	"SignInLink": func(t *testing.T, f *fixture) {
		w := f.workspace("Acme", 0)
		m, link := f.member(w.ID, "ann@acme.com", core.RoleViewer)
		got, err := f.svc.SignInLinkMember(f.ctx, link)
		noErr(t, "link member", err)
		equal(t, "link member", got.ID, m.ID)
		_, _, err = f.svc.UseSignInLink(f.ctx, link, "short")
		var ve *core.ValidationError
		if !errors.As(err, &ve) || ve.Field != "password" {
			t.Fatalf("a short password: %v", err)
		}
		_, sess, err := f.svc.UseSignInLink(f.ctx, link, goodPassword)
		noErr(t, "use link", err)
		me, err := f.svc.Session(f.ctx, sess)
		noErr(t, "session from link", err)
		equal(t, "session member", me.ID, m.ID)
		_, _, err = f.svc.UseSignInLink(f.ctx, link, goodPassword)
		wantErr(t, "a spent link", err, core.ErrNotFound)

		_, first, err := f.svc.NewSignInLink(f.ctx, m.ID)
		noErr(t, "new link", err)
		_, second, err := f.svc.NewSignInLink(f.ctx, m.ID)
		noErr(t, "newer link", err)
		wantErr(t, "a replaced link", errOf(f.svc.SignInLinkMember(f.ctx, first)), core.ErrNotFound)
		f.clock.Advance(core.SignInLinkTTL - time.Second)
		noErr(t, "a link just inside its day", errOf(f.svc.SignInLinkMember(f.ctx, second)))
		f.clock.Advance(time.Second)
		_, _, err = f.svc.UseSignInLink(f.ctx, second, goodPassword)
		wantErr(t, "an expired link", err, core.ErrNotFound)
	},
	"SignIn": func(t *testing.T, f *fixture) {
		w := f.workspace("Acme", 0)
		m, _ := f.signedUp(w.ID, "ann@acme.com", core.RoleEditor)
		f.member(w.ID, "new@acme.com", core.RoleViewer) // has no password yet
		for _, tc := range []struct{ name, email, password string }{
			{"wrong password", "ann@acme.com", goodPassword + "!"},
			{"unknown address", "nobody@acme.com", goodPassword},
			{"member without a password", "new@acme.com", ""},
			{"empty", "", ""},
		} {
			t.Run(tc.name, func(t *testing.T) {
				_, _, err := f.svc.SignIn(f.ctx, tc.email, tc.password)
				wantErr(t, tc.name, err, core.ErrBadCredentials)
			})
		}
		got, sess, err := f.svc.SignIn(f.ctx, " ANN@acme.com ", goodPassword)
		noErr(t, "sign in", err)
		equal(t, "signed-in member", got.ID, m.ID)
		noErr(t, "session", errOf(f.svc.Session(f.ctx, sess)))
		noErr(t, "sign out", f.svc.SignOut(f.ctx, sess))
		wantErr(t, "signed out", errOf(f.svc.Session(f.ctx, sess)), core.ErrNotFound)
		wantErr(t, "unknown token", errOf(f.svc.Session(f.ctx, "nonsense")), core.ErrNotFound)
	},
	"SessionLifetimes": func(t *testing.T, f *fixture) {
		w := f.workspace("Acme", 0)
		_, idle := f.signedUp(w.ID, "idle@acme.com", core.RoleViewer)
		_, busy := f.signedUp(w.ID, "busy@acme.com", core.RoleViewer)
		f.clock.Advance(core.SessionIdle - time.Minute)
		noErr(t, "busy session in use", errOf(f.svc.Session(f.ctx, busy)))
		f.clock.Advance(time.Minute)
		wantErr(t, "idle session", errOf(f.svc.Session(f.ctx, idle)), core.ErrNotFound)
		// Used every 11 hours, a session still ends 30 days after it began.
		start := f.clock.Now().Add(-core.SessionIdle)
		for f.clock.Now().Sub(start) < core.SessionMaxAge-11*time.Hour {
			noErr(t, "busy session", errOf(f.svc.Session(f.ctx, busy)))
			f.clock.Advance(11 * time.Hour)
		}
		f.clock.Advance(start.Add(core.SessionMaxAge).Sub(f.clock.Now()))
		wantErr(t, "a session 30 days old", errOf(f.svc.Session(f.ctx, busy)), core.ErrNotFound)
	},
	"RemovedMemberLosesSessions": func(t *testing.T, f *fixture) {
		w := f.workspace("Acme", 0)
		m, sess := f.signedUp(w.ID, "ann@acme.com", core.RoleAdmin)
		_, link, err := f.svc.NewSignInLink(f.ctx, m.ID)
		noErr(t, "link", err)
		noErr(t, "remove", f.svc.RemoveMember(f.ctx, m.ID))
		wantErr(t, "session of a removed member", errOf(f.svc.Session(f.ctx, sess)), core.ErrNotFound)
		wantErr(t, "link of a removed member", errOf(f.svc.SignInLinkMember(f.ctx, link)), core.ErrNotFound)
		_, _, err = f.svc.SignIn(f.ctx, "ann@acme.com", goodPassword)
		wantErr(t, "sign-in of a removed member", err, core.ErrBadCredentials)
	},
	"PasswordStoredHashed": func(t *testing.T, f *fixture) {
		w := f.workspace("Acme", 0)
		m, _ := f.signedUp(w.ID, "ann@acme.com", core.RoleAdmin)
		got, err := f.st.Member(f.ctx, m.ID)
		noErr(t, "member", err)
		ok, err := core.CheckPassword(got.PasswordHash, goodPassword)
		if err != nil || !ok || got.PasswordHash == goodPassword {
			t.Fatalf("stored password %q does not verify as an argon2id hash: %v", got.PasswordHash, err)
		}
	},
	"RevokeKeyOfWorkspace": func(t *testing.T, f *fixture) {
		w, other := f.workspace("Acme", 0), f.workspace("Other", 0)
		k, _, err := f.svc.CreateKey(f.ctx, other.ID, "theirs")
		noErr(t, "key", err)
		wantErr(t, "another workspace's key", f.svc.RevokeWorkspaceKey(f.ctx, w.ID, k.ID), core.ErrNotFound)
		noErr(t, "own key", f.svc.RevokeWorkspaceKey(f.ctx, other.ID, k.ID))
		keys, err := f.svc.Keys(f.ctx, other.ID)
		noErr(t, "keys", err)
		if len(keys) != 1 || keys[0].RevokedAt.IsZero() {
			t.Fatalf("the key was not revoked: %+v", keys)
		}
	},
}

// errOf keeps only the error of a two-valued call.
func errOf[T any](_ T, err error) error { return err }
