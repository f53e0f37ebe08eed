-- Input a connector answered before writing it (the webhook's 202): kept as received until the entry's
-- worker has written its records (then deleted), or kept as failed with the last error.
CREATE TABLE deliveries (
    id            text PRIMARY KEY,
    workspace_id  text NOT NULL REFERENCES workspaces(id),
    entry         text NOT NULL,
    body          bytea NOT NULL,
    state         text NOT NULL,
    attempts      integer NOT NULL DEFAULT 0,
    last_error    text NOT NULL DEFAULT '',
    run_at        timestamptz NOT NULL,
    lease_until   timestamptz,
    leased_by     text NOT NULL DEFAULT '',
    created_at    timestamptz NOT NULL,
    updated_at    timestamptz NOT NULL
);
CREATE INDEX deliveries_entry ON deliveries (entry, created_at, id);
