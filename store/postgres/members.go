package postgres

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/feedbridge/feedbridge/core"
)

const memberCols = `m.id, m.workspace_id, m.email, m.role, m.password_hash, m.created_at`

func scanMember(row pgx.Row, extra ...any) (core.Member, error) {
	var m core.Member
	err := row.Scan(append([]any{&m.ID, &m.Workspace, &m.Email, &m.Role, &m.PasswordHash, &m.CreatedAt}, extra...)...)
	m.CreatedAt = ms(m.CreatedAt)
	return m, err
}

// CreateMember inserts a member; an address in use is core.ErrConflict, a missing workspace core.ErrNotFound.
func (s *Store) CreateMember(ctx context.Context, m core.Member) error {
	_, err := s.pool.Exec(ctx, `INSERT INTO members (id, workspace_id, email, role, password_hash, created_at)
		VALUES ($1, $2, $3, $4, $5, $6)`, m.ID, m.Workspace, m.Email, m.Role, m.PasswordHash, ms(m.CreatedAt))
	return fail("create member", err)
}

// Members lists a workspace's members by address.
func (s *Store) Members(ctx context.Context, ws core.ID) ([]core.Member, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+memberCols+` FROM members m WHERE m.workspace_id = $1 ORDER BY m.email`, ws)
	if err != nil {
		return nil, fail("members", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (core.Member, error) { return scanMember(r) })
	return out, fail("members", err)
}

// Member returns one member by id.
func (s *Store) Member(ctx context.Context, id core.ID) (core.Member, error) {
	m, err := scanMember(s.pool.QueryRow(ctx, `SELECT `+memberCols+` FROM members m WHERE m.id = $1`, id))
	return m, fail("member", err)
}

// MemberByEmail returns the member with a lower-cased address.
func (s *Store) MemberByEmail(ctx context.Context, email string) (core.Member, error) {
	m, err := scanMember(s.pool.QueryRow(ctx, `SELECT `+memberCols+` FROM members m WHERE m.email = $1`, email))
	return m, fail("member by email", err)
}

// DeleteMember removes a member; its link and sessions go by cascade.
func (s *Store) DeleteMember(ctx context.Context, id core.ID) error {
	tag, err := s.pool.Exec(ctx, `DELETE FROM members WHERE id = $1`, id)
	if err == nil && tag.RowsAffected() == 0 {
		err = pgx.ErrNoRows
	}
	return fail("delete member", err)
}

// SetMemberRole changes a member's role; sessions read the member on every request, so it applies at once.
func (s *Store) SetMemberRole(ctx context.Context, id core.ID, role core.Role) error {
	tag, err := s.pool.Exec(ctx, `UPDATE members SET role = $2 WHERE id = $1`, id, string(role))
	if err == nil && tag.RowsAffected() == 0 {
		err = pgx.ErrNoRows
	}
	return fail("set member role", err)
}

// PutSignInLink stores the member's one link, replacing an earlier one.
func (s *Store) PutSignInLink(ctx context.Context, member core.ID, hash string, expires time.Time) error {
	_, err := s.pool.Exec(ctx, `INSERT INTO member_links (member_id, hash, expires_at) VALUES ($1, $2, $3)
		ON CONFLICT (member_id) DO UPDATE SET hash = excluded.hash, expires_at = excluded.expires_at`, member, hash, ms(expires))
	return fail("put sign-in link", err)
}

const linkQuery = `SELECT ` + memberCols + ` FROM member_links l JOIN members m ON m.id = l.member_id
	WHERE l.hash = $1 AND l.expires_at > $2`

// SignInLink returns the member of an unexpired link.
func (s *Store) SignInLink(ctx context.Context, hash string, now time.Time) (core.Member, error) {
	m, err := scanMember(s.pool.QueryRow(ctx, linkQuery, hash, ms(now)))
	return m, fail("sign-in link", err)
}

// UseSignInLink spends a link, sets the password and creates the session in one transaction; the link's
// row is locked so that two uses of one link cannot both succeed.
func (s *Store) UseSignInLink(ctx context.Context, hash string, now time.Time, passwordHash string, sess core.Session) (core.Member, error) {
	var m core.Member
	err := s.inTx(ctx, "use sign-in link", func(tx pgx.Tx) error {
		var err error
		if m, err = scanMember(tx.QueryRow(ctx, linkQuery+` FOR UPDATE OF l`, hash, ms(now))); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `DELETE FROM member_links WHERE member_id = $1`, m.ID); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `UPDATE members SET password_hash = $2 WHERE id = $1`, m.ID, passwordHash); err != nil {
			return err
		}
		m.PasswordHash = passwordHash
		_, err = tx.Exec(ctx, `INSERT INTO member_sessions (hash, member_id, created_at, last_seen_at) VALUES ($1, $2, $3, $4)`,
			sess.Hash, m.ID, ms(sess.CreatedAt), ms(sess.LastSeenAt))
		return err
	})
	if err != nil {
		return core.Member{}, err
	}
	return m, nil
}

// CreateSession stores a session of a member.
func (s *Store) CreateSession(ctx context.Context, sess core.Session) error {
	_, err := s.pool.Exec(ctx, `INSERT INTO member_sessions (hash, member_id, created_at, last_seen_at) VALUES ($1, $2, $3, $4)`,
		sess.Hash, sess.Member, ms(sess.CreatedAt), ms(sess.LastSeenAt))
	return fail("create session", err)
}

// Session returns a session and its member.
func (s *Store) Session(ctx context.Context, hash string) (core.Session, core.Member, error) {
	var sess core.Session
	m, err := scanMember(s.pool.QueryRow(ctx, `SELECT `+memberCols+`, x.hash, x.created_at, x.last_seen_at
		FROM member_sessions x JOIN members m ON m.id = x.member_id WHERE x.hash = $1`, hash), &sess.Hash, &sess.CreatedAt, &sess.LastSeenAt)
	if err != nil {
		return core.Session{}, core.Member{}, fail("session", err)
	}
	sess.Member, sess.CreatedAt, sess.LastSeenAt = m.ID, ms(sess.CreatedAt), ms(sess.LastSeenAt)
	return sess, m, nil
}

// TouchSession moves a session's last-seen time forward (never back).
func (s *Store) TouchSession(ctx context.Context, hash string, at time.Time) error {
	_, err := s.pool.Exec(ctx, `UPDATE member_sessions SET last_seen_at = greatest(last_seen_at, $2) WHERE hash = $1`, hash, ms(at))
	return fail("touch session", err)
}

// DeleteSession ends a session.
func (s *Store) DeleteSession(ctx context.Context, hash string) error {
	_, err := s.pool.Exec(ctx, `DELETE FROM member_sessions WHERE hash = $1`, hash)
	return fail("delete session", err)
}
