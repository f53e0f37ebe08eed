package sqlite

import "github.com/feedbridge/feedbridge/core"

// erasedKey is the form key is stored in once its customer has been erased (core.ErasedDedupKey).
func (w *recordWriter) erasedKey(key string) (string, error) {
	secret := w.s.erasure.Load()
	if secret == nil {
		var v []byte
		if err := w.tx.QueryRowContext(w.ctx, `SELECT value FROM store_secrets WHERE name = ?`, core.ErasureSecret).Scan(&v); err != nil {
			return "", err
		}
		w.s.erasure.Store(&v)
		secret = &v
	}
	return core.ErasedDedupKey(*secret, w.ws, key), nil
}

// syncResolved forgets the remembered contacts once an erasure, of this process or another, has deleted
// one since they were remembered: a remembered id of a deleted contact would fail the insert.
func (w *recordWriter) syncResolved() error {
	if w.synced {
		return nil
	}
	var n int64
	if err := w.tx.QueryRowContext(w.ctx, `SELECT n FROM store_epochs WHERE name = 'contacts'`).Scan(&n); err != nil {
		return err
	}
	w.s.resolved.sync(n)
	w.synced = true
	return nil
}
