-- The first schema of the SQLite store. Migrations are append-only: change the schema in a new numbered file.
-- Times are Unix milliseconds; an optional time is NULL when unset.

CREATE TABLE workspaces (
    id          TEXT PRIMARY KEY,
    name        TEXT NOT NULL,
    plan        TEXT NOT NULL,
    idea_limit  INTEGER NOT NULL DEFAULT 0,
    ideas_used  INTEGER NOT NULL DEFAULT 0,
    suspended   INTEGER NOT NULL DEFAULT 0,
    created_at  INTEGER NOT NULL
);

CREATE TABLE api_keys (
    id            TEXT PRIMARY KEY,
    workspace_id  TEXT NOT NULL REFERENCES workspaces(id),
    name          TEXT NOT NULL,
    prefix        TEXT NOT NULL,
    hash          TEXT NOT NULL UNIQUE,
    created_at    INTEGER NOT NULL,
    revoked_at    INTEGER
);
CREATE INDEX api_keys_workspace ON api_keys(workspace_id, created_at);

-- Tags and products. label_key is the Unicode case-folded label: unique per workspace and kind, and the sort key.
CREATE TABLE lookups (
    id            TEXT PRIMARY KEY,
    workspace_id  TEXT NOT NULL REFERENCES workspaces(id),
    kind          TEXT NOT NULL,
    label         TEXT NOT NULL,
    label_key     TEXT NOT NULL,
    UNIQUE (workspace_id, kind, label_key)
);

CREATE TABLE users (
    id            TEXT PRIMARY KEY,
    workspace_id  TEXT NOT NULL REFERENCES workspaces(id),
    name          TEXT NOT NULL,
    name_key      TEXT NOT NULL,
    email         TEXT NOT NULL DEFAULT ''
);
CREATE INDEX users_workspace ON users(workspace_id, name_key);

CREATE TABLE companies (
    id            TEXT PRIMARY KEY,
    workspace_id  TEXT NOT NULL REFERENCES workspaces(id),
    name          TEXT NOT NULL,
    name_key      TEXT NOT NULL,
    domain        TEXT NOT NULL,
    UNIQUE (workspace_id, domain)
);

CREATE TABLE contacts (
    id            TEXT PRIMARY KEY,
    workspace_id  TEXT NOT NULL REFERENCES workspaces(id),
    email         TEXT NOT NULL,
    email_key     TEXT NOT NULL,
    name          TEXT NOT NULL DEFAULT '',
    company_id    TEXT REFERENCES companies(id),
    UNIQUE (workspace_id, email_key)
);

-- seq is the rowid the full-text index points at; id is the public ObjectId.
CREATE TABLE records (
    seq               INTEGER PRIMARY KEY,
    id                TEXT NOT NULL UNIQUE,
    workspace_id      TEXT NOT NULL REFERENCES workspaces(id),
    type              TEXT NOT NULL,
    title             TEXT NOT NULL,
    description_html  TEXT NOT NULL DEFAULT '',
    description       TEXT NOT NULL DEFAULT '',
    search_text       TEXT NOT NULL,
    status            TEXT NOT NULL,
    source            TEXT NOT NULL,
    assignee_id       TEXT REFERENCES users(id),
    product_id        TEXT REFERENCES lookups(id),
    contact_id        TEXT REFERENCES contacts(id),
    company_id        TEXT REFERENCES companies(id),
    customer_email    TEXT NOT NULL DEFAULT '',
    reporter          TEXT NOT NULL DEFAULT '',
    release           TEXT NOT NULL DEFAULT '',
    timeframe         TEXT NOT NULL DEFAULT '',
    dedup_key         TEXT,
    created_at        INTEGER NOT NULL,
    updated_at        INTEGER NOT NULL
);
CREATE INDEX records_listing ON records(workspace_id, type, created_at, id);
CREATE INDEX records_updated ON records(workspace_id, type, updated_at);
CREATE UNIQUE INDEX records_dedup ON records(workspace_id, dedup_key) WHERE dedup_key IS NOT NULL;
CREATE INDEX records_company ON records(company_id) WHERE company_id IS NOT NULL;

-- Substring search over the folded text: trigrams of search_text, case-sensitive because the text and the
-- query are both folded by core already.
CREATE VIRTUAL TABLE records_fts USING fts5(
    search_text, content='records', content_rowid='seq', tokenize='trigram case_sensitive 1', detail='none'
);
CREATE TRIGGER records_fts_insert AFTER INSERT ON records BEGIN
    INSERT INTO records_fts(rowid, search_text) VALUES (new.seq, new.search_text);
END;
CREATE TRIGGER records_fts_delete AFTER DELETE ON records BEGIN
    INSERT INTO records_fts(records_fts, rowid, search_text) VALUES ('delete', old.seq, old.search_text);
END;

CREATE TABLE record_tags (
    record_id  TEXT NOT NULL REFERENCES records(id),
    tag_id     TEXT NOT NULL REFERENCES lookups(id),
    pos        INTEGER NOT NULL,
    PRIMARY KEY (record_id, tag_id)
) WITHOUT ROWID;
CREATE INDEX record_tags_tag ON record_tags(tag_id, record_id);

CREATE TABLE idempotency_keys (
    workspace_id  TEXT NOT NULL REFERENCES workspaces(id),
    key           TEXT NOT NULL,
    fingerprint   TEXT NOT NULL,
    record_id     TEXT NOT NULL REFERENCES records(id),
    created_at    INTEGER NOT NULL,
    PRIMARY KEY (workspace_id, key)
) WITHOUT ROWID;
CREATE INDEX idempotency_keys_age ON idempotency_keys(created_at);

CREATE TABLE checkpoints (
    workspace_id  TEXT NOT NULL REFERENCES workspaces(id),
    name          TEXT NOT NULL,
    value         TEXT NOT NULL,
    updated_at    INTEGER NOT NULL,
    PRIMARY KEY (workspace_id, name)
) WITHOUT ROWID;

CREATE TABLE connector_statuses (
    workspace_id     TEXT NOT NULL REFERENCES workspaces(id),
    name             TEXT NOT NULL,
    kind             TEXT NOT NULL,
    state            TEXT NOT NULL,
    last_success_at  INTEGER,
    last_error       TEXT NOT NULL DEFAULT '',
    updated_at       INTEGER NOT NULL,
    PRIMARY KEY (workspace_id, name)
) WITHOUT ROWID;

CREATE TABLE import_runs (
    id            TEXT PRIMARY KEY,
    workspace_id  TEXT NOT NULL REFERENCES workspaces(id),
    connector     TEXT NOT NULL,
    file          TEXT NOT NULL,
    status        TEXT NOT NULL,
    rows          INTEGER NOT NULL DEFAULT 0,
    created       INTEGER NOT NULL DEFAULT 0,
    duplicates    INTEGER NOT NULL DEFAULT 0,
    failed        INTEGER NOT NULL DEFAULT 0,
    error         TEXT NOT NULL DEFAULT '',
    started_at    INTEGER NOT NULL,
    finished_at   INTEGER
);
CREATE INDEX import_runs_workspace ON import_runs(workspace_id, started_at);

CREATE TABLE insight_jobs (
    id            TEXT PRIMARY KEY,
    workspace_id  TEXT NOT NULL REFERENCES workspaces(id),
    record_id     TEXT NOT NULL REFERENCES records(id),
    state         TEXT NOT NULL,
    attempts      INTEGER NOT NULL DEFAULT 0,
    max_attempts  INTEGER NOT NULL,
    last_error    TEXT NOT NULL DEFAULT '',
    run_at        INTEGER NOT NULL,
    lease_until   INTEGER,
    leased_by     TEXT NOT NULL DEFAULT '',
    created_at    INTEGER NOT NULL,
    updated_at    INTEGER NOT NULL
);
CREATE INDEX insight_jobs_queued ON insight_jobs(run_at) WHERE state = 'queued';
CREATE INDEX insight_jobs_running ON insight_jobs(lease_until) WHERE state = 'running';
CREATE INDEX insight_jobs_failed ON insight_jobs(workspace_id, updated_at) WHERE state = 'failed';

CREATE TABLE insights (
    id               TEXT PRIMARY KEY,
    workspace_id     TEXT NOT NULL REFERENCES workspaces(id),
    record_id        TEXT NOT NULL REFERENCES records(id),
    kind             TEXT NOT NULL,
    summary          TEXT NOT NULL,
    quote            TEXT NOT NULL,
    sentiment        TEXT NOT NULL,
    sentiment_score  REAL NOT NULL,
    themes           TEXT NOT NULL DEFAULT '[]',
    tags             TEXT NOT NULL DEFAULT '[]',
    extractor        TEXT NOT NULL,
    created_at       INTEGER NOT NULL
);
CREATE INDEX insights_record ON insights(workspace_id, record_id);

CREATE TABLE leases (
    name        TEXT PRIMARY KEY,
    holder      TEXT NOT NULL,
    expires_at  INTEGER NOT NULL
) WITHOUT ROWID;
