-- A record written alone (an API create, a Slack command) no longer pays for a full-text segment of its
-- own in its transaction: its seq is queued here, and the indexer (indexer.go) writes the queued entries in
-- batches. Searches read the queue too, so a record is found from the moment it is committed.
CREATE TABLE records_fts_pending (
    seq INTEGER PRIMARY KEY -- a records.seq; the delete trigger below keeps the two in step
);

-- A record still queued has no full-text entry to delete.
DROP TRIGGER IF EXISTS records_fts_delete;
CREATE TRIGGER records_fts_delete AFTER DELETE ON records BEGIN
    INSERT INTO records_fts(records_fts, rowid, search_text)
        SELECT 'delete', old.seq, old.search_text
        WHERE NOT EXISTS (SELECT 1 FROM records_fts_pending WHERE seq = old.seq);
    DELETE FROM records_fts_pending WHERE seq = old.seq;
END;

-- One row that a readiness check rewrites while writes are failing (a full disk), to learn when they work
-- again without waiting for a client's write (health.go).
CREATE TABLE store_probe (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    at INTEGER NOT NULL
);
