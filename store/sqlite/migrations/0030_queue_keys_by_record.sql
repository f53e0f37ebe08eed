-- An event is written in its change's transaction beside the record's insight job, and the two used to
-- land on different leaves of every index they share, because each index was led by the queue: an event
-- dirtied leaves of its own in the unique (queue, id) index and in queue_items_key. Led by what the two
-- have in common instead, their entries sit side by side: ids are stamped with the time they are made,
-- so an event's id and its record's job id follow each other in (id, queue); both are keyed by the
-- record, so they follow each other in (order_key, queue, seq). Every lookup of either index binds all of
-- its leading columns, so each still finds its rows by a seek. The uniqueness is declared with the
-- table, so the table is rebuilt; its rows and the sequence of seq are kept as they are.
CREATE TABLE queue_items_new (
    seq           INTEGER PRIMARY KEY AUTOINCREMENT,
    id            TEXT NOT NULL,
    queue         TEXT NOT NULL,
    kind          TEXT NOT NULL,
    workspace_id  TEXT NOT NULL,
    order_key     TEXT NOT NULL DEFAULT '',
    body          BLOB NOT NULL,
    state         TEXT NOT NULL,
    attempts      INTEGER NOT NULL DEFAULT 0,
    last_error    TEXT NOT NULL DEFAULT '',
    retry_for_ms  INTEGER NOT NULL,
    run_at        INTEGER NOT NULL,
    lease_until   INTEGER,
    leased_by     TEXT NOT NULL DEFAULT '',
    give_up_at    INTEGER NOT NULL,
    created_at    INTEGER NOT NULL,
    updated_at    INTEGER NOT NULL,
    UNIQUE (id, queue)
);
INSERT INTO queue_items_new SELECT seq, id, queue, kind, workspace_id, order_key, body, state, attempts, last_error,
    retry_for_ms, run_at, lease_until, leased_by, give_up_at, created_at, updated_at FROM queue_items ORDER BY seq;
-- seq goes on from the highest ever handed out, not from the highest still stored.
INSERT INTO sqlite_sequence (name, seq) SELECT 'queue_items_new', 0
    WHERE NOT EXISTS (SELECT 1 FROM sqlite_sequence WHERE name = 'queue_items_new');
UPDATE sqlite_sequence SET seq = max(seq, coalesce((SELECT seq FROM sqlite_sequence WHERE name = 'queue_items'), 0))
    WHERE name = 'queue_items_new';
DROP TABLE queue_items;
ALTER TABLE queue_items_new RENAME TO queue_items;
CREATE INDEX queue_items_pending ON queue_items(queue, seq) WHERE state <> 'failed';
CREATE INDEX queue_items_key ON queue_items(order_key, queue, seq) WHERE order_key <> '';
CREATE INDEX queue_items_failed ON queue_items(kind, updated_at) WHERE state = 'failed';
CREATE INDEX queue_items_running ON queue_items(queue, lease_until) WHERE state = 'running';
CREATE INDEX queue_items_due ON queue_items(queue, workspace_id, run_at, seq) WHERE state = 'queued' AND queue = 'insights';
