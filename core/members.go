package core

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"sync"
	"time"
	"unicode/utf8"
)

// Lifetimes of the console's credentials.
const (
	SignInLinkTTL  = 24 * time.Hour
	SessionIdle    = 12 * time.Hour
	SessionMaxAge  = 30 * 24 * time.Hour
	sessionTouchGo = time.Minute // last-seen is written at most this often per session
)

// ErrBadCredentials is every failed sign-in: which of the two was wrong is not told.
var ErrBadCredentials = errors.New("email or password is wrong")

// dummyHash is checked against when no member has the address, so that an unknown address costs as much
// time as a wrong password and does not reveal who is a member.
// It is made on first use: hashing costs memory and time that a process which never signs anyone in
// should not pay.
var dummyHash = sync.OnceValue(func() string { h, _ := HashPassword("feedbridge-no-such-member"); return h })

// newToken returns a random URL-safe secret and the hash under which it is stored.
func newToken() (token, hash string, err error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", "", fmt.Errorf("token: %w", err)
	}
	token = base64.RawURLEncoding.EncodeToString(b)
	return token, HashToken(token), nil
}

// HashToken is the only form in which sign-in link and session tokens are stored.
func HashToken(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

// AddMember makes a member of a workspace and returns a one-time sign-in link token for it.
func (s *Service) AddMember(ctx context.Context, ws ID, email string, role Role) (Member, string, error) {
	addr, err := ParseEmail(email)
	if err != nil {
		return Member{}, "", invalid("email", "invalid email", "email must be one bare address.")
	}
	if _, ok := ParseRole(string(role)); !ok {
		return Member{}, "", invalid("role", "invalid role", "role must be one of admin, editor, viewer.")
	}
	if _, err := s.store.Workspace(ctx, ws); err != nil {
		return Member{}, "", err
	}
	m := Member{ID: NewID(), Workspace: ws, Email: lower(addr), Role: Role(lower(string(role))), CreatedAt: s.Now()}
	if err := s.store.CreateMember(ctx, m); err != nil {
		if errors.Is(err, ErrConflict) {
			return Member{}, "", invalid("email", "member exists", "%s is already a member.", m.Email)
		}
		return Member{}, "", err
	}
	_, token, err := s.NewSignInLink(ctx, m.ID)
	return m, token, err
}

// Members lists a workspace's members by address.
func (s *Service) Members(ctx context.Context, ws ID) ([]Member, error) {
	return s.store.Members(ctx, ws)
}

// Member returns one member by id, of any workspace (the command line names members by id alone).
func (s *Service) Member(ctx context.Context, id ID) (Member, error) { return s.store.Member(ctx, id) }

// RemoveMember deletes a member with its sign-in link and sessions.
func (s *Service) RemoveMember(ctx context.Context, id ID) error {
	return s.store.DeleteMember(ctx, id)
}

// WorkspaceMember returns a member of ws; a member of another workspace is ErrNotFound, as if absent.
func (s *Service) WorkspaceMember(ctx context.Context, ws, id ID) (Member, error) {
	m, err := s.store.Member(ctx, id)
	if err == nil && m.Workspace != ws {
		err = ErrNotFound
	}
	return m, err
}

// SetMemberRole changes the role of a member of ws. The member's sessions read the role on every
// request, so the change applies at once.
func (s *Service) SetMemberRole(ctx context.Context, ws, id ID, role Role) (Member, error) {
	r, ok := ParseRole(string(role))
	if !ok {
		return Member{}, invalid("role", "invalid role", "role must be one of admin, editor, viewer.")
	}
	m, err := s.WorkspaceMember(ctx, ws, id)
	if err != nil {
		return Member{}, err
	}
	if err := s.store.SetMemberRole(ctx, id, r); err != nil {
		return Member{}, err
	}
	m.Role = r
	return m, nil
}

// NewSignInLink gives a member a fresh sign-in link token, valid for SignInLinkTTL; an earlier link stops
// working.
func (s *Service) NewSignInLink(ctx context.Context, member ID) (Member, string, error) {
	m, err := s.store.Member(ctx, member)
	if err != nil {
		return Member{}, "", err
	}
	token, hash, err := newToken()
	if err != nil {
		return Member{}, "", err
	}
	return m, token, s.store.PutSignInLink(ctx, m.ID, hash, s.Now().Add(SignInLinkTTL))
}

// SignInLinkMember returns the member a valid link token belongs to; ErrNotFound when it is spent or expired.
func (s *Service) SignInLinkMember(ctx context.Context, token string) (Member, error) {
	return s.store.SignInLink(ctx, HashToken(token), s.Now())
}

// CheckNewPassword enforces the password rules on what a member chose.
func CheckNewPassword(password string) error {
	n := utf8.RuneCountInString(password)
	if n < MinPasswordLength {
		return invalid("password", "password too short", "Choose a password of at least %d characters.", MinPasswordLength)
	}
	if n > MaxPasswordLength {
		return invalid("password", "password too long", "Choose a password of at most %d characters.", MaxPasswordLength)
	}
	return nil
}

// UseSignInLink sets the member's password from a valid link, spends the link and signs the member in,
// returning the new session token.
func (s *Service) UseSignInLink(ctx context.Context, token, password string) (Member, string, error) {
	if err := CheckNewPassword(password); err != nil {
		return Member{}, "", err
	}
	hash, err := HashPassword(password)
	if err != nil {
		return Member{}, "", err
	}
	sessToken, sessHash, err := newToken()
	if err != nil {
		return Member{}, "", err
	}
	now := s.Now()
	m, err := s.store.UseSignInLink(ctx, HashToken(token), now, hash, Session{Hash: sessHash, CreatedAt: now, LastSeenAt: now})
	if err != nil {
		return Member{}, "", err
	}
	return m, sessToken, nil
}

// SignIn checks an address and password and starts a session. Every failure is ErrBadCredentials.
func (s *Service) SignIn(ctx context.Context, email, password string) (Member, string, error) {
	if len(password) > MaxPasswordLength*utf8.UTFMax {
		return Member{}, "", ErrBadCredentials
	}
	m, err := s.store.MemberByEmail(ctx, lower(email))
	if err != nil && !errors.Is(err, ErrNotFound) {
		return Member{}, "", err
	}
	hash := m.PasswordHash
	if err != nil || hash == "" {
		hash = dummyHash()
	}
	ok, cerr := CheckPassword(hash, password)
	if err != nil || m.PasswordHash == "" || cerr != nil || !ok {
		return Member{}, "", ErrBadCredentials
	}
	token, sessHash, err := newToken()
	if err != nil {
		return Member{}, "", err
	}
	now := s.Now()
	if err := s.store.CreateSession(ctx, Session{Hash: sessHash, Member: m.ID, CreatedAt: now, LastSeenAt: now}); err != nil {
		return Member{}, "", err
	}
	return m, token, nil
}

// Session resolves a session token to its member. A session idle for SessionIdle, older than SessionMaxAge,
// signed out, or of a removed member is ErrNotFound (an ended one is deleted on the way).
func (s *Service) Session(ctx context.Context, token string) (Member, error) {
	if token == "" {
		return Member{}, ErrNotFound
	}
	hash := HashToken(token)
	sess, m, err := s.store.Session(ctx, hash)
	if err != nil {
		return Member{}, err
	}
	now := s.Now()
	if now.Sub(sess.LastSeenAt) >= SessionIdle || now.Sub(sess.CreatedAt) >= SessionMaxAge {
		if err := s.store.DeleteSession(ctx, hash); err != nil {
			return Member{}, err
		}
		return Member{}, ErrNotFound
	}
	if now.Sub(sess.LastSeenAt) >= sessionTouchGo {
		if err := s.store.TouchSession(ctx, hash, now); err != nil {
			return Member{}, err
		}
	}
	return m, nil
}

// SignOut ends the session of a token.
func (s *Service) SignOut(ctx context.Context, token string) error {
	if token == "" {
		return nil
	}
	return s.store.DeleteSession(ctx, HashToken(token))
}

// RevokeWorkspaceKey revokes a key of ws; a key of another workspace is ErrNotFound like an absent one.
func (s *Service) RevokeWorkspaceKey(ctx context.Context, ws, keyID ID) error {
	keys, err := s.store.APIKeys(ctx, ws)
	if err != nil {
		return err
	}
	for _, k := range keys {
		if k.ID == keyID {
			return s.store.RevokeAPIKey(ctx, keyID, s.Now())
		}
	}
	return ErrNotFound
}
