package postgres

import "context"

// StoreSecret returns the named secret made by the migrations.
func (s *Store) StoreSecret(ctx context.Context, name string) ([]byte, error) {
	var v []byte
	err := s.pool.QueryRow(ctx, `SELECT value FROM store_secrets WHERE name = $1`, name).Scan(&v)
	return v, fail("store secret", err)
}
