package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/feedbridge/feedbridge/core"
)

// CreateRecord writes one record with everything that belongs to it in one transaction: the idempotency
// replay or conflict, the dedup check, the referenced ids, the idea limit, contact and company, tags, the
// insight job, the idempotency entry and the checkpoint. On any error nothing is written.
func (s *Store) CreateRecord(ctx context.Context, ws core.ID, nr core.NewRecord) (core.Record, bool, error) {
	var (
		rec     core.Record
		created bool
	)
	err := s.write(ctx, "create record", func(tx *wtx) error {
		// A workspace that does not exist fails the first insert on its foreign key (ErrNotFound); only
		// the idea limit needs the row itself.
		w := s.newRecordWriter(tx, ws)
		if nr.Idempotency != nil {
			id, err := w.replay(nr)
			if err != nil || id != "" {
				if err == nil {
					rec, err = recordByID(ctx, tx, ws, id)
				}
				return err
			}
		}
		if nr.DedupKey != "" {
			id, err := w.dedupHit(nr.DedupKey)
			if err != nil || id != "" {
				if err == nil {
					rec, err = recordByID(ctx, tx, ws, id)
				}
				if err == nil {
					err = w.checkpoint(nr.Checkpoint)
				}
				return err
			}
		}
		refs, err := w.refs(nr)
		if err != nil {
			return err
		}
		if nr.CountIdea {
			if err := w.countIdea(); err != nil {
				return err
			}
		}
		if rec, err = w.insert(nr, refs); err != nil {
			return err
		}
		if err := w.remember(nr); err != nil {
			return err
		}
		events, err := nr.Outbox.Items(core.EventRecordCreated, rec, nil)
		if err != nil {
			return err
		}
		if err := w.queueCreated(nr, events); err != nil {
			return err
		}
		created = true
		return w.checkpoint(nr.Checkpoint)
	})
	if err != nil {
		return core.Record{}, false, err
	}
	return rec, created, nil
}

// replay looks the idempotency key up: the first record's id for the same request within the window,
// ErrIdempotencyConflict for another request, "" when the key is new or expired.
func (w *recordWriter) replay(nr core.NewRecord) (core.ID, error) {
	var (
		fp      string
		id      core.ID
		created int64
	)
	err := w.tx.QueryRowContext(w.ctx, `SELECT fingerprint, record_id, created_at FROM idempotency_keys
		WHERE workspace_id = ? AND key = ?`, w.ws, nr.Idempotency.Key).Scan(&fp, &id, &created)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return "", nil
	case err != nil:
		return "", err
	case created < ms(w.idemNow(nr).Add(-core.IdempotencyWindow)):
		return "", nil // expired: the key is free again and remember will overwrite it
	case fp != nr.Idempotency.Fingerprint:
		return "", core.ErrIdempotencyConflict
	}
	return id, nil
}

// remember stores the idempotency key of a created record and drops a few expired keys, so the table
// stays the size of one window without a separate sweeper.
func (w *recordWriter) remember(nr core.NewRecord) error {
	if nr.Idempotency == nil {
		return nil
	}
	now := w.idemNow(nr)
	if _, err := w.tx.ExecContext(w.ctx, `INSERT INTO idempotency_keys(workspace_id, key, fingerprint, record_id, created_at)
		VALUES (?, ?, ?, ?, ?) ON CONFLICT (workspace_id, key) DO UPDATE SET fingerprint = excluded.fingerprint,
		record_id = excluded.record_id, created_at = excluded.created_at`,
		w.ws, nr.Idempotency.Key, nr.Idempotency.Fingerprint, nr.ID, ms(now)); err != nil {
		return err
	}
	_, err := w.tx.ExecContext(w.ctx, `DELETE FROM idempotency_keys WHERE (workspace_id, key) IN (
		SELECT workspace_id, key FROM idempotency_keys WHERE created_at < ? LIMIT 20)`, ms(now.Add(-core.IdempotencyWindow)))
	return err
}

// idemNow is the clock of the idempotency window: the service's time of the request, which it stamps
// as the record's UpdatedAt, so the window follows the service's clock (and tests can move it).
func (w *recordWriter) idemNow(nr core.NewRecord) time.Time {
	if nr.UpdatedAt.IsZero() {
		return fromMS(w.now)
	}
	return nr.UpdatedAt
}

func (w *recordWriter) dedupHit(key string) (core.ID, error) {
	erased, err := w.erasedKey(key)
	if err != nil {
		return "", err
	}
	var id core.ID
	err = w.tx.QueryRowContext(w.ctx, `SELECT id FROM records WHERE workspace_id = ? AND dedup_key IN (?, ?)`, w.ws, key, erased).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	return id, err
}

// countIdea takes one idea from the workspace's limit. The single writer serialises this read and
// increment, so concurrent creates never overshoot.
func (w *recordWriter) countIdea() error {
	wsp, err := w.workspace()
	if err != nil {
		return err
	}
	if wsp.IdeaLimit > 0 && wsp.IdeasUsed >= wsp.IdeaLimit {
		return &core.IdeaLimitError{Used: wsp.IdeasUsed, Limit: wsp.IdeaLimit, Plan: wsp.Plan}
	}
	_, err = w.tx.ExecContext(w.ctx, `UPDATE workspaces SET ideas_used = ideas_used + 1 WHERE id = ?`, w.ws)
	return err
}

func (w *recordWriter) checkpoint(c *core.Checkpoint) error {
	if c == nil {
		return nil
	}
	return putCheckpoint(w.ctx, w.tx, w.ws, *c, w.now)
}
