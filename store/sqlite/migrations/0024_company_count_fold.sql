-- A create no longer updates its company's row: that update rewrote the row and its entry in
-- companies_by_count, two more pages in every create's commit. A new record's company is counted later, in
-- bulk, by foldCounts (companies.go): its full-text queue entry, which every create writes anyway, carries
-- counted = 0 until the fold has added it to its company's feedback_count. The indexer folds before it
-- drains the queue, and every read of the counts folds first (or, when it cannot write, adds the uncounted
-- records itself), so no read misses a record.
-- Entries queued before this migration were counted by the trigger dropped here.
ALTER TABLE records_fts_pending ADD COLUMN counted INTEGER NOT NULL DEFAULT 1;
DROP TRIGGER records_count_insert;

-- A record not yet counted takes nothing away from its company when it is deleted or moved: the fold
-- counts it where it is then, or not at all once it is gone. BEFORE, so that the queue entry, which the
-- full-text delete trigger removes, is still there to be seen.
DROP TRIGGER records_count_delete;
CREATE TRIGGER records_count_delete BEFORE DELETE ON records
WHEN old.company_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM records_fts_pending WHERE seq = old.seq AND counted = 0) BEGIN
    UPDATE companies SET feedback_count = feedback_count - 1 WHERE id = old.company_id;
END;
DROP TRIGGER records_count_update;
CREATE TRIGGER records_count_update AFTER UPDATE OF company_id ON records
WHEN old.company_id IS NOT new.company_id AND NOT EXISTS (SELECT 1 FROM records_fts_pending WHERE seq = new.seq AND counted = 0) BEGIN
    UPDATE companies SET feedback_count = feedback_count - 1 WHERE id = old.company_id;
    UPDATE companies SET feedback_count = feedback_count + 1 WHERE id = new.company_id;
END;
