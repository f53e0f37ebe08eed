package postgres

import (
	"context"
	"time"

	"github.com/feedbridge/feedbridge/core"
)

// TryAcquire takes the named lease for holder until ttl from now, when it is free, expired or already the
// holder's own (a renewal). One statement decides, so two replicas racing for a lease cannot both win; the
// database's clock decides expiry, so replicas need not agree on time.
func (s *Store) TryAcquire(ctx context.Context, name, holder string, ttl time.Duration) (bool, error) {
	tag, err := s.leases.Exec(ctx, `
		INSERT INTO leases (name, holder, expires_at) VALUES ($1, $2, `+dbNow+` + $3 * interval '1 millisecond')
		ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at
		WHERE leases.expires_at <= clock_timestamp() OR leases.holder = excluded.holder`,
		name, holder, ttl.Milliseconds())
	if err != nil {
		return false, fail("acquire lease "+name, err)
	}
	return tag.RowsAffected() == 1, nil
}

// Release gives the lease up if holder still has it, so that another replica need not wait for expiry.
func (s *Store) Release(ctx context.Context, name, holder string) error {
	_, err := s.leases.Exec(ctx, `DELETE FROM leases WHERE name = $1 AND holder = $2`, name, holder)
	return fail("release lease "+name, err)
}

// leaseConns bounds the lease pool: each statement takes a millisecond or so, and a replica renews each of
// its entries only a few times a second.
const leaseConns = 2

var _ core.Leases = (*Store)(nil)
