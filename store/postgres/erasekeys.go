package postgres

import (
	"context"

	"github.com/feedbridge/feedbridge/core"
)

// erasedKey is the form key is stored in once its customer has been erased (core.ErasedDedupKey); ""
// for no key.
func (s *Store) erasedKey(ctx context.Context, ws core.ID, key string) (string, error) {
	if key == "" {
		return "", nil
	}
	secret := s.erasure.Load()
	if secret == nil {
		v, err := s.StoreSecret(ctx, core.ErasureSecret)
		if err != nil {
			return "", err
		}
		s.erasure.Store(&v)
		secret = &v
	}
	return core.ErasedDedupKey(*secret, ws, key), nil
}
