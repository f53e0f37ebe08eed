package sqlite

import (
	"context"
	"time"
)

// TryAcquire takes the named lease when it is free or expired, or renews it for its holder. The lease lives
// in the database file rather than in memory, so a CLI process and the daemon on the same file also agree.
func (s *Store) TryAcquire(ctx context.Context, name, holder string, ttl time.Duration) (bool, error) {
	var ok bool
	err := s.write(ctx, "acquire lease", func(tx *wtx) error {
		now := s.nowMS()
		res, err := tx.ExecContext(ctx, `INSERT INTO leases(name, holder, expires_at) VALUES (?, ?, ?)
			ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at
			WHERE leases.holder = excluded.holder OR leases.expires_at <= ?`, name, holder, now+ttl.Milliseconds(), now)
		if err != nil {
			return err
		}
		n, err := res.RowsAffected()
		ok = n == 1
		return err
	})
	return ok, err
}

// Release gives the lease up, only when holder still has it.
func (s *Store) Release(ctx context.Context, name, holder string) error {
	return s.write(ctx, "release lease", func(tx *wtx) error {
		_, err := tx.ExecContext(ctx, `DELETE FROM leases WHERE name = ? AND holder = ?`, name, holder)
		return err
	})
}
