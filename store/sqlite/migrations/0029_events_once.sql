-- Events are written straight onto queue_items by the change's own transaction, once: the outbox and the
-- move of its rows onto the queue are gone. Events an older binary left in the outbox are carried onto the
-- queue here as its move carried them (in the order they were written, due and giving up as counted from
-- when they were written; one whose (queue, id) is already queued is dropped), then the outbox goes.
INSERT INTO queue_items (id, queue, kind, workspace_id, order_key, body, state, attempts, last_error, retry_for_ms,
        run_at, lease_until, leased_by, give_up_at, created_at, updated_at)
    SELECT id, queue, kind, workspace_id, order_key, body, 'queued', 0, '', retry_for_ms, enqueued_at,
        NULL, '', enqueued_at + retry_for_ms, created_at, enqueued_at
    FROM queue_outbox ORDER BY seq
    ON CONFLICT (queue, id) DO NOTHING;
DROP TABLE queue_outbox;
