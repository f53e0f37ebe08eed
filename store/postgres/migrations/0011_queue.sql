-- The general durable queue of outbound work (events to subscribers first). seq is the enqueue order that
-- claims follow; (queue, id) is one piece of work for one consumer. Finished items are deleted; given-up
-- ones stay as 'failed' until retried. No foreign key to workspaces: an item outlives nothing it needs.
CREATE TABLE queue_items (
    seq           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    id            text NOT NULL,
    queue         text NOT NULL,
    kind          text NOT NULL,
    workspace_id  text NOT NULL,
    order_key     text NOT NULL DEFAULT '',
    body          bytea NOT NULL,
    state         text NOT NULL,
    attempts      integer NOT NULL DEFAULT 0,
    last_error    text NOT NULL DEFAULT '',
    retry_for_ms  bigint NOT NULL,
    run_at        timestamptz NOT NULL,
    lease_until   timestamptz,
    leased_by     text NOT NULL DEFAULT '',
    give_up_at    timestamptz NOT NULL,
    created_at    timestamptz NOT NULL,
    updated_at    timestamptz NOT NULL,
    UNIQUE (queue, id)
);
-- The claim walks one queue's pending items in order; the order check looks up earlier pending items of
-- a key; the failed list and its retry look only at failed items.
CREATE INDEX queue_items_pending ON queue_items (queue, seq) WHERE state <> 'failed';
CREATE INDEX queue_items_key ON queue_items (queue, order_key, seq) WHERE state <> 'failed' AND order_key <> '';
CREATE INDEX queue_items_failed ON queue_items (kind, updated_at) WHERE state = 'failed';
