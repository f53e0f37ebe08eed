package sqlite

import (
	"context"
	"database/sql"
	"time"

	"github.com/feedbridge/feedbridge/core"
)

// Events reach the queue through an outbox. A change writes its events in its own transaction, but into
// queue_outbox, a table with no index but its integer key: an event row written straight onto queue_items
// wrote the row and four index entries at the commit of every change, which was most of what a subscriber
// cost a create. The outbox is moved onto queue_items in key order (the order of the commits that wrote
// the rows, so the events of a record keep their order), up to outboxBatch rows per transaction: a row is
// either still in the outbox or on the queue, never both and never neither. The events' index entries are
// then written once per batch. What is still in the outbox is later than everything on the queue, so a
// claim that does not see it hands nothing out of order; the counts and the list of pending queues read
// the outbox as well.
//
// The daemon's store moves the outbox in the background (outboxMover), a moment after a commit wrote to
// it, so that it never holds more than that moment's events: a claim after a long pause (a subscriber
// whose every slot waits on a slow answer, a worker restarted on reload) then finds little to move, and
// events written while no claim runs (no worker, or one in another process) still reach the queue. Each
// batch is a write of its own, queued behind the writes already waiting, so a change waits for at most
// one small batch, never for a whole backlog.
//
// Only events go through the outbox: the other kinds of work keep their own write paths and claims.

// outboxBatch is how many outbox rows one move transaction takes at most, which bounds how long a move
// holds the write lock.
const outboxBatch = 200

// outboxDelay is how long the mover waits after a commit wrote to the outbox before it moves it: the
// events of that moment move together, in one batch. outboxPoll is how often it looks anyway, for rows
// another process wrote.
const (
	outboxDelay = 100 * time.Millisecond
	outboxPoll  = 5 * time.Second
)

const outboxCols = `id, queue, kind, workspace_id, order_key, body, retry_for_ms, created_at, enqueued_at`

// viaOutbox tells whether an item is written to the outbox rather than onto the queue.
func viaOutbox(it core.QueueItem) bool { return it.Kind == core.EventKind }

// toOutbox appends an item to the outbox inside the change's transaction. retryFor and created are the
// item's, resolved as enqueue resolves them; now is the change's time.
func toOutbox(tx *wtx, it core.QueueItem, retryForMS, created, now int64) error {
	_, err := tx.ExecContext(tx.ctx, `INSERT INTO queue_outbox (`+outboxCols+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		it.ID, it.Queue, it.Kind, it.Workspace, it.Key, it.Body, retryForMS, created, now)
	return err
}

// moveOutbox moves every row of the outbox onto the queue, outboxBatch rows per transaction. A row whose
// (queue, id) is already on the queue is dropped, as enqueueing it again would have been. It returns at
// once, without a write, when the outbox is empty.
func (s *Store) moveOutbox(ctx context.Context) error {
	for {
		var waiting bool
		if err := s.rq.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM queue_outbox)`).Scan(&waiting); err != nil || !waiting {
			return s.fail("move outbox", err)
		}
		var moved int64
		err := s.write(ctx, "move outbox", func(tx *wtx) error {
			var last sql.NullInt64
			if err := tx.QueryRowContext(tx.ctx, `SELECT max(seq) FROM
				(SELECT seq FROM queue_outbox ORDER BY seq LIMIT ?)`, outboxBatch).Scan(&last); err != nil || !last.Valid {
				return err
			}
			if _, err := tx.ExecContext(tx.ctx, `INSERT INTO queue_items (`+queueCols+`)
				SELECT id, queue, kind, workspace_id, order_key, body, 'queued', 0, '', retry_for_ms, enqueued_at,
					NULL, '', enqueued_at + retry_for_ms, created_at, enqueued_at
				FROM queue_outbox WHERE seq <= ? ORDER BY seq
				ON CONFLICT (queue, id) DO NOTHING`, last.Int64); err != nil {
				return err
			}
			res, err := tx.ExecContext(tx.ctx, `DELETE FROM queue_outbox WHERE seq <= ?`, last.Int64)
			if err != nil {
				return err
			}
			moved, err = res.RowsAffected()
			return err
		})
		if err != nil || moved < outboxBatch {
			return err
		}
	}
}

// kickOutbox is called after a commit that wrote to the outbox: it wakes the mover.
func (s *Store) kickOutbox() {
	select {
	case s.outboxKick <- struct{}{}:
	default:
	}
}

// outboxMover moves the outbox onto the queue at once (what was left there before a restart), then a
// moment after each commit that wrote to it, and every outboxPoll for what other processes wrote, until
// Close. A move that fails (a full disk, say) leaves the rows in the outbox for the next one.
func (s *Store) outboxMover() {
	defer close(s.outboxMoved)
	poll := time.NewTicker(outboxPoll)
	defer poll.Stop()
	for {
		_ = s.moveOutbox(housekeeping())
		select {
		case <-s.outboxKick:
			select {
			case <-time.After(outboxDelay):
			case <-s.quit:
				return
			}
		case <-poll.C:
		case <-s.quit:
			return
		}
	}
}
