-- Events are written by the change's own transaction into a narrow append-only table with no index but its
-- integer key, and moved onto queue_items in batches, in key order (the order of the commits that wrote
-- them), before a claim. Every index entry of an item is then written once per batch instead of once per
-- change. enqueued_at is when the change wrote the event: the item's due time and give-up time count from it.
CREATE TABLE queue_outbox (
    seq           INTEGER PRIMARY KEY,
    id            TEXT NOT NULL,
    queue         TEXT NOT NULL,
    kind          TEXT NOT NULL,
    workspace_id  TEXT NOT NULL,
    order_key     TEXT NOT NULL,
    body          BLOB NOT NULL,
    retry_for_ms  INTEGER NOT NULL,
    created_at    INTEGER NOT NULL,
    enqueued_at   INTEGER NOT NULL
);
