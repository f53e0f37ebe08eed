-- The first schema of the PostgreSQL store. Migrations are append-only: change the schema in a new numbered
-- file. Every tenant table leads with workspace_id so that each query is scoped by an index prefix. An id
-- that is not set is '' rather than NULL (the joins then simply find nothing); an optional time is NULL.

CREATE EXTENSION IF NOT EXISTS pg_trgm;

CREATE TABLE workspaces (
    id          text PRIMARY KEY,
    name        text NOT NULL,
    plan        text NOT NULL,
    idea_limit  integer NOT NULL DEFAULT 0,
    ideas_used  integer NOT NULL DEFAULT 0,
    suspended   boolean NOT NULL DEFAULT false,
    created_at  timestamptz NOT NULL
);

CREATE TABLE api_keys (
    id            text PRIMARY KEY,
    workspace_id  text NOT NULL REFERENCES workspaces (id),
    name          text NOT NULL,
    prefix        text NOT NULL,
    hash          text NOT NULL UNIQUE,
    created_at    timestamptz NOT NULL,
    revoked_at    timestamptz
);
CREATE INDEX api_keys_workspace ON api_keys (workspace_id, created_at);

-- Tags and products. label_key is the Unicode case-folded label: unique per workspace and kind.
CREATE TABLE lookups (
    workspace_id  text NOT NULL REFERENCES workspaces (id),
    id            text NOT NULL,
    kind          text NOT NULL,
    label         text NOT NULL,
    label_key     text NOT NULL,
    PRIMARY KEY (workspace_id, id),
    UNIQUE (workspace_id, kind, label_key)
);

CREATE TABLE users (
    workspace_id  text NOT NULL REFERENCES workspaces (id),
    id            text NOT NULL,
    name          text NOT NULL,
    email         text NOT NULL DEFAULT '',
    PRIMARY KEY (workspace_id, id)
);

CREATE TABLE companies (
    workspace_id  text NOT NULL REFERENCES workspaces (id),
    id            text NOT NULL,
    name          text NOT NULL,
    domain        text NOT NULL,
    PRIMARY KEY (workspace_id, id),
    UNIQUE (workspace_id, domain)
);

CREATE TABLE contacts (
    workspace_id  text NOT NULL REFERENCES workspaces (id),
    id            text NOT NULL,
    email         text NOT NULL,
    email_key     text NOT NULL,
    name          text NOT NULL DEFAULT '',
    company_id    text NOT NULL DEFAULT '',
    PRIMARY KEY (workspace_id, id),
    UNIQUE (workspace_id, email_key)
);

-- tag_ids keeps the record's tags in the order given; "carries all of these tags" is tag_ids @> array.
CREATE TABLE records (
    workspace_id      text NOT NULL REFERENCES workspaces (id),
    id                text NOT NULL,
    type              text NOT NULL,
    title             text NOT NULL,
    description_html  text NOT NULL DEFAULT '',
    description       text NOT NULL DEFAULT '',
    search_text       text NOT NULL,
    status            text NOT NULL,
    source            text NOT NULL,
    assignee_id       text NOT NULL DEFAULT '',
    product_id        text NOT NULL DEFAULT '',
    tag_ids           text[] NOT NULL DEFAULT '{}',
    contact_id        text NOT NULL DEFAULT '',
    company_id        text NOT NULL DEFAULT '',
    customer_email    text NOT NULL DEFAULT '',
    reporter          text NOT NULL DEFAULT '',
    release           text NOT NULL DEFAULT '',
    timeframe         text NOT NULL DEFAULT '',
    dedup_key         text,
    created_at        timestamptz NOT NULL,
    updated_at        timestamptz NOT NULL,
    PRIMARY KEY (workspace_id, id)
);
CREATE INDEX records_listing ON records (workspace_id, type, created_at, id);
CREATE UNIQUE INDEX records_dedup ON records (workspace_id, dedup_key);
-- Substring search: core folds both the stored text and the query, so a plain LIKE over trigrams is the
-- Unicode case-insensitive match.
CREATE INDEX records_search ON records USING gin (search_text gin_trgm_ops);

CREATE TABLE idempotency_keys (
    workspace_id  text NOT NULL REFERENCES workspaces (id),
    key           text NOT NULL,
    fingerprint   text NOT NULL,
    record_id     text NOT NULL,
    created_at    timestamptz NOT NULL,
    PRIMARY KEY (workspace_id, key)
);

CREATE TABLE checkpoints (
    workspace_id  text NOT NULL REFERENCES workspaces (id),
    name          text NOT NULL,
    value         text NOT NULL,
    updated_at    timestamptz NOT NULL,
    PRIMARY KEY (workspace_id, name)
);

CREATE TABLE connector_statuses (
    workspace_id     text NOT NULL REFERENCES workspaces (id),
    name             text NOT NULL,
    kind             text NOT NULL,
    state            text NOT NULL,
    last_success_at  timestamptz,
    last_error       text NOT NULL DEFAULT '',
    updated_at       timestamptz NOT NULL,
    PRIMARY KEY (workspace_id, name)
);

CREATE TABLE import_runs (
    workspace_id  text NOT NULL REFERENCES workspaces (id),
    id            text NOT NULL,
    connector     text NOT NULL,
    file          text NOT NULL,
    status        text NOT NULL,
    rows          integer NOT NULL DEFAULT 0,
    created       integer NOT NULL DEFAULT 0,
    duplicates    integer NOT NULL DEFAULT 0,
    failed        integer NOT NULL DEFAULT 0,
    error         text NOT NULL DEFAULT '',
    started_at    timestamptz NOT NULL,
    finished_at   timestamptz,
    PRIMARY KEY (id)
);
CREATE INDEX import_runs_workspace ON import_runs (workspace_id, started_at);

CREATE TABLE insight_jobs (
    id            text PRIMARY KEY,
    workspace_id  text NOT NULL REFERENCES workspaces (id),
    record_id     text NOT NULL,
    state         text NOT NULL,
    attempts      integer NOT NULL DEFAULT 0,
    max_attempts  integer NOT NULL,
    last_error    text NOT NULL DEFAULT '',
    run_at        timestamptz NOT NULL,
    lease_until   timestamptz,
    leased_by     text NOT NULL DEFAULT '',
    created_at    timestamptz NOT NULL,
    updated_at    timestamptz NOT NULL
);
CREATE INDEX insight_jobs_queued ON insight_jobs (run_at) WHERE state = 'queued';
CREATE INDEX insight_jobs_running ON insight_jobs (lease_until) WHERE state = 'running';
CREATE INDEX insight_jobs_failed ON insight_jobs (workspace_id, created_at) WHERE state = 'failed';

CREATE TABLE insights (
    id               text PRIMARY KEY,
    workspace_id     text NOT NULL REFERENCES workspaces (id),
    record_id        text NOT NULL,
    kind             text NOT NULL,
    summary          text NOT NULL,
    quote            text NOT NULL,
    sentiment        text NOT NULL,
    sentiment_score  double precision NOT NULL,
    themes           text[] NOT NULL DEFAULT '{}',
    tags             text[] NOT NULL DEFAULT '{}',
    extractor        text NOT NULL,
    created_at       timestamptz NOT NULL
);
CREATE INDEX insights_record ON insights (workspace_id, record_id);

-- Leases coordinate replicas: one holder per name until expires_at (the database's clock decides).
CREATE TABLE leases (
    name        text PRIMARY KEY,
    holder      text NOT NULL,
    expires_at  timestamptz NOT NULL
);
