-- Input a connector answered before writing it (the webhook's 202): kept as received until the entry's
-- worker has written its records (then deleted), or kept as failed with the last error.
CREATE TABLE deliveries (
    id            TEXT PRIMARY KEY,
    workspace_id  TEXT NOT NULL REFERENCES workspaces(id),
    entry         TEXT NOT NULL,
    body          BLOB NOT NULL,
    state         TEXT NOT NULL,
    attempts      INTEGER NOT NULL DEFAULT 0,
    last_error    TEXT NOT NULL DEFAULT '',
    run_at        INTEGER NOT NULL,
    lease_until   INTEGER,
    leased_by     TEXT NOT NULL DEFAULT '',
    created_at    INTEGER NOT NULL,
    updated_at    INTEGER NOT NULL
);
CREATE INDEX deliveries_entry ON deliveries(entry, created_at, id);
