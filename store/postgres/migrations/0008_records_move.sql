-- Records that move: edits, links, merges and their history.
-- version counts every change of what a read of the record shows (its ETag); an edit is written only
-- while the version it was computed from is still current. feedback_count is kept in the record so that
-- Ideas and Features list by demand from an index. created_by ("kind:name") is who created the record:
-- the history's "created" entry is read from it, so a create writes no history row.
ALTER TABLE records
    ADD COLUMN version bigint NOT NULL DEFAULT 0,
    ADD COLUMN importance int,
    ADD COLUMN merged_into text NOT NULL DEFAULT '',
    ADD COLUMN feedback_count int NOT NULL DEFAULT 0,
    ADD COLUMN created_by text NOT NULL DEFAULT '';
-- Partial: only Ideas and Features list by demand, and Feedback, most of what is created, pays nothing for it.
CREATE INDEX records_demand ON records (workspace_id, type, feedback_count, created_at, id) WHERE type IN ('Idea', 'Feature');

-- A Feedback linked to an Idea or Feature. The cascades keep a link from outliving either record, also
-- when a link and a delete race.
CREATE TABLE record_links (
    workspace_id  text NOT NULL,
    feedback_id   text NOT NULL,
    target_id     text NOT NULL,
    created_at    timestamptz NOT NULL,
    PRIMARY KEY (workspace_id, feedback_id, target_id),
    FOREIGN KEY (workspace_id, feedback_id) REFERENCES records (workspace_id, id) ON DELETE CASCADE,
    FOREIGN KEY (workspace_id, target_id) REFERENCES records (workspace_id, id) ON DELETE CASCADE
);
CREATE INDEX record_links_target ON record_links (workspace_id, target_id, feedback_id);

-- Every change after creation; seq orders a record's entries.
CREATE TABLE record_history (
    seq           bigserial PRIMARY KEY,
    workspace_id  text NOT NULL,
    record_id     text NOT NULL,
    at            timestamptz NOT NULL,
    actor         text NOT NULL,
    action        text NOT NULL,
    changes       text NOT NULL,
    FOREIGN KEY (workspace_id, record_id) REFERENCES records (workspace_id, id) ON DELETE CASCADE
);
CREATE INDEX record_history_record ON record_history (workspace_id, record_id, seq);

-- A deleted record's insight jobs are found by record; done jobs are kept, so without this a delete would
-- read the whole queue.
CREATE INDEX insight_jobs_record ON insight_jobs (record_id);
