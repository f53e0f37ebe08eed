package sqlite

import "context"

// StoreSecret returns the named secret made by the migrations.
func (s *Store) StoreSecret(ctx context.Context, name string) ([]byte, error) {
	var v []byte
	err := s.rq.QueryRowContext(ctx, `SELECT value FROM store_secrets WHERE name = ?`, name).Scan(&v)
	return v, s.fail("store secret", err)
}
