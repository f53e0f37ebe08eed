package sqlite

import (
	"context"
	"time"

	"github.com/feedbridge/feedbridge/core"
)

const memberCols = `m.id, m.workspace_id, m.email, m.role, m.password_hash, m.created_at`

func scanMember(sc scanner, extra ...any) (core.Member, error) {
	var (
		m       core.Member
		created int64
	)
	err := sc.Scan(append([]any{&m.ID, &m.Workspace, &m.Email, &m.Role, &m.PasswordHash, &created}, extra...)...)
	m.CreatedAt = fromMS(created)
	return m, err
}

func (s *Store) CreateMember(ctx context.Context, m core.Member) error {
	return s.write(ctx, "create member", func(tx *wtx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO members(id, workspace_id, email, role, password_hash, created_at)
			VALUES (?, ?, ?, ?, ?, ?)`, m.ID, m.Workspace, m.Email, m.Role, m.PasswordHash, ms(m.CreatedAt))
		return err
	})
}

func (s *Store) Members(ctx context.Context, ws core.ID) ([]core.Member, error) {
	rows, err := s.rq.QueryContext(ctx, `SELECT `+memberCols+` FROM members m WHERE m.workspace_id = ? ORDER BY m.email`, ws)
	if err != nil {
		return nil, s.fail("members", err)
	}
	out, err := collect(rows, func(sc scanner) (core.Member, error) { return scanMember(sc) })
	return out, s.fail("members", err)
}

func (s *Store) Member(ctx context.Context, id core.ID) (core.Member, error) {
	m, err := scanMember(s.rq.QueryRowContext(ctx, `SELECT `+memberCols+` FROM members m WHERE m.id = ?`, id))
	return m, s.fail("member", err)
}

func (s *Store) MemberByEmail(ctx context.Context, email string) (core.Member, error) {
	m, err := scanMember(s.rq.QueryRowContext(ctx, `SELECT `+memberCols+` FROM members m WHERE m.email = ?`, email))
	return m, s.fail("member by email", err)
}

func (s *Store) DeleteMember(ctx context.Context, id core.ID) error {
	return s.write(ctx, "delete member", func(tx *wtx) error {
		return mustChange(tx.ExecContext(ctx, `DELETE FROM members WHERE id = ?`, id))
	})
}

func (s *Store) SetMemberRole(ctx context.Context, id core.ID, role core.Role) error {
	return s.write(ctx, "set member role", func(tx *wtx) error {
		return mustChange(tx.ExecContext(ctx, `UPDATE members SET role = ? WHERE id = ?`, string(role), id))
	})
}

func (s *Store) PutSignInLink(ctx context.Context, member core.ID, hash string, expires time.Time) error {
	return s.write(ctx, "put sign-in link", func(tx *wtx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO member_links(member_id, hash, expires_at) VALUES (?, ?, ?)
			ON CONFLICT (member_id) DO UPDATE SET hash = excluded.hash, expires_at = excluded.expires_at`, member, hash, ms(expires))
		return err
	})
}

func (s *Store) SignInLink(ctx context.Context, hash string, now time.Time) (core.Member, error) {
	m, err := scanMember(s.rq.QueryRowContext(ctx, `SELECT `+memberCols+` FROM member_links l JOIN members m ON m.id = l.member_id
		WHERE l.hash = ? AND l.expires_at > ?`, hash, ms(now)))
	return m, s.fail("sign-in link", err)
}

func (s *Store) UseSignInLink(ctx context.Context, hash string, now time.Time, passwordHash string, sess core.Session) (core.Member, error) {
	var m core.Member
	err := s.write(ctx, "use sign-in link", func(tx *wtx) error {
		var err error
		m, err = scanMember(tx.QueryRowContext(ctx, `SELECT `+memberCols+` FROM member_links l JOIN members m ON m.id = l.member_id
			WHERE l.hash = ? AND l.expires_at > ?`, hash, ms(now)))
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM member_links WHERE member_id = ?`, m.ID); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE members SET password_hash = ? WHERE id = ?`, passwordHash, m.ID); err != nil {
			return err
		}
		m.PasswordHash = passwordHash
		_, err = tx.ExecContext(ctx, `INSERT INTO member_sessions(hash, member_id, created_at, last_seen_at) VALUES (?, ?, ?, ?)`,
			sess.Hash, m.ID, ms(sess.CreatedAt), ms(sess.LastSeenAt))
		return err
	})
	if err != nil {
		return core.Member{}, err
	}
	return m, nil
}

func (s *Store) CreateSession(ctx context.Context, sess core.Session) error {
	return s.write(ctx, "create session", func(tx *wtx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO member_sessions(hash, member_id, created_at, last_seen_at) VALUES (?, ?, ?, ?)`,
			sess.Hash, sess.Member, ms(sess.CreatedAt), ms(sess.LastSeenAt))
		return err
	})
}

func (s *Store) Session(ctx context.Context, hash string) (core.Session, core.Member, error) {
	var (
		sess          core.Session
		created, seen int64
	)
	m, err := scanMember(s.rq.QueryRowContext(ctx, `SELECT `+memberCols+`, x.hash, x.created_at, x.last_seen_at
		FROM member_sessions x JOIN members m ON m.id = x.member_id WHERE x.hash = ?`, hash), &sess.Hash, &created, &seen)
	if err != nil {
		return core.Session{}, core.Member{}, s.fail("session", err)
	}
	sess.Member, sess.CreatedAt, sess.LastSeenAt = m.ID, fromMS(created), fromMS(seen)
	return sess, m, nil
}

func (s *Store) TouchSession(ctx context.Context, hash string, at time.Time) error {
	return s.write(ctx, "touch session", func(tx *wtx) error {
		_, err := tx.ExecContext(ctx, `UPDATE member_sessions SET last_seen_at = max(last_seen_at, ?) WHERE hash = ?`, ms(at), hash)
		return err
	})
}

func (s *Store) DeleteSession(ctx context.Context, hash string) error {
	return s.write(ctx, "delete session", func(tx *wtx) error {
		_, err := tx.ExecContext(ctx, `DELETE FROM member_sessions WHERE hash = ?`, hash)
		return err
	})
}
