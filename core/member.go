package core

import (
	"context"
	"time"
)

// Role is what a member of a workspace may do in the console: viewers read, editors also change records and
// run imports, admins also manage API keys and members.
type Role string

const (
	RoleViewer Role = "viewer"
	RoleEditor Role = "editor"
	RoleAdmin  Role = "admin"
)

// ParseRole accepts the three role names in any case.
func ParseRole(s string) (Role, bool) {
	switch r := Role(lower(s)); r {
	case RoleViewer, RoleEditor, RoleAdmin:
		return r, true
	}
	return "", false
}

// Allows reports whether a member with role r may do what needs role need.
func (r Role) Allows(need Role) bool { return r.rank() >= need.rank() }

func (r Role) rank() int {
	switch r {
	case RoleAdmin:
		return 3
	case RoleEditor:
		return 2
	case RoleViewer:
		return 1
	}
	return 0
}

// Member is a person who signs in to the console. An address belongs to at most one member in the whole
// store, so the sign-in form needs no workspace. PasswordHash is "" until the member has used a sign-in link.
type Member struct {
	ID           ID
	Workspace    ID
	Email        string // lower-cased
	Role         Role
	PasswordHash string // encoded argon2id hash with its parameters, see HashPassword
	CreatedAt    time.Time
}

// Session is a signed-in browser. Only the SHA-256 hash of its token is stored.
type Session struct {
	Hash       string
	Member     ID
	CreatedAt  time.Time
	LastSeenAt time.Time
}

// MemberStore keeps members, their sign-in links and their sessions. Removing a member removes its link and
// sessions with it, so a removed member's next request is already refused.
type MemberStore interface {
	// CreateMember adds a member; an address in use is ErrConflict, an absent workspace ErrNotFound.
	CreateMember(ctx context.Context, m Member) error
	Members(ctx context.Context, ws ID) ([]Member, error) // sorted by email
	Member(ctx context.Context, id ID) (Member, error)
	MemberByEmail(ctx context.Context, email string) (Member, error) // email lower-cased
	DeleteMember(ctx context.Context, id ID) error
	// SetMemberRole changes a member's role; an absent member is ErrNotFound.
	SetMemberRole(ctx context.Context, id ID, role Role) error
	// PutSignInLink gives the member a new link (by its token's hash), replacing any earlier one.
	PutSignInLink(ctx context.Context, member ID, hash string, expires time.Time) error
	// SignInLink finds the member of a link that has not expired at now; ErrNotFound otherwise.
	SignInLink(ctx context.Context, hash string, now time.Time) (Member, error)
	// UseSignInLink spends a link that has not expired at now: in one transaction the link goes, the
	// member's password hash is set and the session is created. A spent or expired link is ErrNotFound.
	UseSignInLink(ctx context.Context, hash string, now time.Time, passwordHash string, s Session) (Member, error)
	CreateSession(ctx context.Context, s Session) error
	// Session returns a session with its member; ErrNotFound when either is gone.
	Session(ctx context.Context, hash string) (Session, Member, error)
	TouchSession(ctx context.Context, hash string, at time.Time) error
	DeleteSession(ctx context.Context, hash string) error // deleting an absent session is not an error
}
