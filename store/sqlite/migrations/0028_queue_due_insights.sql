-- Only the insight queue is claimed fairly between workspaces; events and deliveries are claimed in
-- enqueue order through queue_items_pending. The due index keeps only the insight queue's entries, so
-- that an event or a delivery no longer writes an entry when it is queued and again when it is claimed.
-- The fair claim's queue = ? matches the index's condition when it is bound to the insight queue; a fair
-- claim of another queue still works, without the index.
DROP INDEX queue_items_due;
CREATE INDEX queue_items_due ON queue_items(queue, workspace_id, run_at, seq) WHERE state = 'queued' AND queue = 'insights';
