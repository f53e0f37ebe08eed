-- Erasing a customer (ForgetContact) replaces the dedup keys built from their address by keyed hashes:
-- "erasure" is that key, made once like "cursor".
INSERT INTO store_secrets (name, value)
    VALUES ('erasure', decode(replace(gen_random_uuid()::text || gen_random_uuid()::text, '-', ''), 'hex'));

-- Counters that a replica compares with what it cached: erasure deletes contacts, which every replica's
-- memory of resolved contacts (known.go) must then forget.
CREATE TABLE store_epochs (
    name  text PRIMARY KEY,
    n     bigint NOT NULL
);
INSERT INTO store_epochs (name, n) VALUES ('contacts', 0);

-- GET /companies shows when a company was first seen and how many records credit it, sorted by that count.
-- The count is kept by statement triggers, so that a listing reads one index instead of counting records,
-- and every path that writes records (the API, the importers' COPY, deletions) keeps it without knowing of
-- it; one update per company per statement, its rows locked in id order so that two writers never wait on
-- each other in a circle. Existing companies take the time of their first record, or the migration's time.
ALTER TABLE companies ADD COLUMN created_at timestamptz NOT NULL DEFAULT now();
ALTER TABLE companies ADD COLUMN feedback_count bigint NOT NULL DEFAULT 0;
UPDATE companies SET feedback_count = c.n, created_at = c.first
FROM (SELECT workspace_id, company_id, count(*) AS n, min(created_at) AS first FROM records
      WHERE company_id <> '' GROUP BY workspace_id, company_id) AS c
WHERE c.workspace_id = companies.workspace_id AND c.company_id = companies.id;
CREATE INDEX companies_by_count ON companies (workspace_id, feedback_count DESC, id);

-- Each function locks its companies in id order, then adds its deltas; transition tables are visible only
-- in the trigger's own function, so each spells both statements out.
CREATE FUNCTION records_count_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM 1 FROM companies c JOIN (SELECT DISTINCT workspace_id, company_id FROM new_rows WHERE company_id <> '') d
        ON d.workspace_id = c.workspace_id AND d.company_id = c.id ORDER BY c.workspace_id, c.id FOR UPDATE OF c;
    UPDATE companies c SET feedback_count = c.feedback_count + d.n
    FROM (SELECT workspace_id, company_id, count(*) AS n FROM new_rows WHERE company_id <> '' GROUP BY 1, 2) d
    WHERE d.workspace_id = c.workspace_id AND d.company_id = c.id;
    RETURN NULL;
END $$;
CREATE FUNCTION records_count_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM 1 FROM companies c JOIN (SELECT DISTINCT workspace_id, company_id FROM old_rows WHERE company_id <> '') d
        ON d.workspace_id = c.workspace_id AND d.company_id = c.id ORDER BY c.workspace_id, c.id FOR UPDATE OF c;
    UPDATE companies c SET feedback_count = c.feedback_count - d.n
    FROM (SELECT workspace_id, company_id, count(*) AS n FROM old_rows WHERE company_id <> '' GROUP BY 1, 2) d
    WHERE d.workspace_id = c.workspace_id AND d.company_id = c.id;
    RETURN NULL;
END $$;
-- Updates that move no record to another company (nearly all) find nothing to do after one join; moves are
-- rare enough (one record at a time) that their locks need no ordering.
CREATE FUNCTION records_count_update() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE companies c SET feedback_count = c.feedback_count + d.n
    FROM (SELECT workspace_id, company_id, sum(n) AS n FROM (
            SELECT o.workspace_id, o.company_id, -1 AS n FROM old_rows o JOIN new_rows w USING (workspace_id, id)
                WHERE o.company_id <> w.company_id AND o.company_id <> ''
            UNION ALL
            SELECT w.workspace_id, w.company_id, 1 FROM old_rows o JOIN new_rows w USING (workspace_id, id)
                WHERE o.company_id <> w.company_id AND w.company_id <> '') AS m
          GROUP BY 1, 2) d
    WHERE d.workspace_id = c.workspace_id AND d.company_id = c.id;
    RETURN NULL;
END $$;
CREATE TRIGGER records_count_insert AFTER INSERT ON records REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION records_count_insert();
CREATE TRIGGER records_count_delete AFTER DELETE ON records REFERENCING OLD TABLE AS old_rows
    FOR EACH STATEMENT EXECUTE FUNCTION records_count_delete();
CREATE TRIGGER records_count_update AFTER UPDATE ON records REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION records_count_update();

-- The CSV import run that wrote a record, so that "import undo" finds the run's records (NULL otherwise).
ALTER TABLE records ADD COLUMN import_run_id text;
CREATE INDEX records_import_run ON records (workspace_id, import_run_id) WHERE import_run_id IS NOT NULL;

