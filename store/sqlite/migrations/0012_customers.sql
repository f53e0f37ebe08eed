-- Erasing a customer (ForgetContact) replaces the dedup keys built from their address by keyed hashes:
-- "erasure" is that key, made once like "cursor".
INSERT INTO store_secrets (name, value) VALUES ('erasure', randomblob(32));

-- Counters that a writer compares with what it cached: erasure deletes contacts, which processes that
-- remember contacts (resolved.go) must then forget, also when another process (the CLI) erased them.
CREATE TABLE store_epochs (
    name  TEXT PRIMARY KEY,
    n     INTEGER NOT NULL
);
INSERT INTO store_epochs (name, n) VALUES ('contacts', 0);

-- Erasure finds a contact's records through it, and deleting the contact makes SQLite look for records that
-- still point at it: without an index both read every record of the store.
CREATE INDEX records_contact ON records(contact_id) WHERE contact_id IS NOT NULL;

-- GET /companies shows when a company was first seen and how many records credit it, sorted by that count.
-- The count is kept by triggers, so that a listing reads one index instead of counting records, and every
-- path that writes records (the API, the importers' bulk path, deletions) keeps it without knowing of it.
-- Existing companies take the time of their first record, or the migration's time without one.
ALTER TABLE companies ADD COLUMN created_at INTEGER NOT NULL DEFAULT 0;
ALTER TABLE companies ADD COLUMN feedback_count INTEGER NOT NULL DEFAULT 0;
UPDATE companies SET feedback_count = c.n, created_at = c.first
FROM (SELECT company_id, count(*) AS n, min(created_at) AS first FROM records WHERE company_id IS NOT NULL GROUP BY company_id) AS c
WHERE c.company_id = companies.id;
UPDATE companies SET created_at = CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER) WHERE created_at = 0;
CREATE INDEX companies_by_count ON companies(workspace_id, feedback_count DESC, id);

-- A column added by ALTER TABLE cannot default to the current time: a new company gets it here.
CREATE TRIGGER companies_created AFTER INSERT ON companies WHEN new.created_at = 0 BEGIN
    UPDATE companies SET created_at = CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER) WHERE id = new.id;
END;
CREATE TRIGGER records_count_insert AFTER INSERT ON records WHEN new.company_id IS NOT NULL BEGIN
    UPDATE companies SET feedback_count = feedback_count + 1 WHERE id = new.company_id;
END;
CREATE TRIGGER records_count_delete AFTER DELETE ON records WHEN old.company_id IS NOT NULL BEGIN
    UPDATE companies SET feedback_count = feedback_count - 1 WHERE id = old.company_id;
END;
CREATE TRIGGER records_count_update AFTER UPDATE OF company_id ON records
WHEN old.company_id IS NOT new.company_id BEGIN
    UPDATE companies SET feedback_count = feedback_count - 1 WHERE id = old.company_id;
    UPDATE companies SET feedback_count = feedback_count + 1 WHERE id = new.company_id;
END;

-- The CSV import run that wrote a record, so that "import undo" finds the run's records (NULL otherwise).
ALTER TABLE records ADD COLUMN import_run_id TEXT;
CREATE INDEX records_import_run ON records(import_run_id) WHERE import_run_id IS NOT NULL;

-- Deleting a record (import undo) makes SQLite look for rows that still point at it; these indexes make that
-- a lookup instead of a scan of each table (insight_jobs has its index from the migration before).
CREATE INDEX insights_record_only ON insights(record_id);
CREATE INDEX idempotency_keys_record ON idempotency_keys(record_id);
