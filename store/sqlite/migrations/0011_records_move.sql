-- Records that move: edits, links, merges and their history.
-- version counts every change of what a read of the record shows (its ETag); an edit is written only
-- while the version it was computed from is still current. feedback_count is kept in the record so that
-- Ideas and Features list by demand from an index. created_by ("kind:name") is who created the record:
-- the history's "created" entry is read from it, so a create writes no history row.
ALTER TABLE records ADD COLUMN version INTEGER NOT NULL DEFAULT 0;
ALTER TABLE records ADD COLUMN importance INTEGER;
ALTER TABLE records ADD COLUMN merged_into TEXT NOT NULL DEFAULT '';
ALTER TABLE records ADD COLUMN feedback_count INTEGER NOT NULL DEFAULT 0;
ALTER TABLE records ADD COLUMN created_by TEXT NOT NULL DEFAULT '';
-- Partial: only Ideas and Features list by demand, and Feedback, most of what is created, pays nothing for it.
CREATE INDEX records_demand ON records(workspace_id, type, feedback_count, created_at, id) WHERE type IN ('Idea', 'Feature');

-- A Feedback linked to an Idea or Feature. The cascades keep a link from outliving either record.
CREATE TABLE record_links (
    workspace_id  TEXT NOT NULL REFERENCES workspaces(id),
    feedback_id   TEXT NOT NULL REFERENCES records(id) ON DELETE CASCADE,
    target_id     TEXT NOT NULL REFERENCES records(id) ON DELETE CASCADE,
    created_at    INTEGER NOT NULL,
    PRIMARY KEY (feedback_id, target_id)
) WITHOUT ROWID;
CREATE INDEX record_links_target ON record_links(target_id, feedback_id);

-- Every change after creation; seq orders a record's entries.
CREATE TABLE record_history (
    seq           INTEGER PRIMARY KEY,
    workspace_id  TEXT NOT NULL REFERENCES workspaces(id),
    record_id     TEXT NOT NULL REFERENCES records(id) ON DELETE CASCADE,
    at            INTEGER NOT NULL,
    actor         TEXT NOT NULL,
    action        TEXT NOT NULL,
    changes       TEXT NOT NULL
);
CREATE INDEX record_history_record ON record_history(record_id, seq);

-- A deleted record's insight jobs are found by record; done jobs are kept, so without this a delete would
-- read the whole queue.
CREATE INDEX insight_jobs_record ON insight_jobs(record_id);
