-- A record's history is kept in the order of its key (record, seq) instead of in a table by seq with an
-- index by record: every edit wrote one page of the table and one of the index to its commit's log, and a
-- status move's commit wrote about eight pages in all; now one of the two. seq orders a record's entries
-- and is only unique within a record: a new entry takes the record's last seq plus one, and entries kept
-- from before keep their seq, in the same order. Every reader finds history by record.
CREATE TABLE record_history_by_record (
    record_id     TEXT NOT NULL REFERENCES records(id) ON DELETE CASCADE,
    seq           INTEGER NOT NULL,
    workspace_id  TEXT NOT NULL REFERENCES workspaces(id),
    at            INTEGER NOT NULL,
    actor         TEXT NOT NULL,
    action        TEXT NOT NULL,
    changes       TEXT NOT NULL,
    PRIMARY KEY (record_id, seq)
) WITHOUT ROWID;
INSERT INTO record_history_by_record(record_id, seq, workspace_id, at, actor, action, changes)
    SELECT record_id, seq, workspace_id, at, actor, action, changes FROM record_history;
DROP TABLE record_history;
ALTER TABLE record_history_by_record RENAME TO record_history;
