-- The store writes full-text entries itself, in one statement per transaction: FTS5 flushes its pending
-- index at every statement savepoint, so a trigger firing inside multi-row inserts made a segment per
-- statement and most of the bulk path's time went into merging them.
DROP TRIGGER IF EXISTS records_fts_insert;

-- Merge less eagerly (fewer, larger merges) and buffer a whole import batch before flushing.
INSERT INTO records_fts(records_fts, rank) VALUES ('automerge', 8);
INSERT INTO records_fts(records_fts, rank) VALUES ('crisismerge', 32);
INSERT INTO records_fts(records_fts, rank) VALUES ('hashsize', 8388608);
