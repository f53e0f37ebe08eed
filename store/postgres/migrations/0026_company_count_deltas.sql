-- Company counts without a write to the company's row on every create. feedback_count is indexed
-- (companies_by_count, the order of GET /companies), so each change of it was a new row version with an
-- entry in every index of companies, and the row stayed locked until the writer committed, so that creates
-- for one company queued behind each other. Writers now append their changes to company_count_deltas
-- (+n records added to a company by a statement, -n deleted, -1/+1 a record moved), a narrow table whose
-- rows nobody else writes; company_counts_fold adds a workspace's changes into feedback_count, one update
-- per company, and deletes them in the same transaction. A company's count is feedback_count plus its
-- changes not yet folded, which one snapshot always shows together. Inserts fold now and then (about once
-- per 256 changes appended), so the changes waiting stay few; a fold never waits for another: it is
-- skipped while one of the same workspace is under way. feedback_count keeps what migration 0009 and its
-- triggers counted, which is exact: there is nothing to carry over. The table's rows are short-lived, so
-- autovacuum visits it after every thousand of them rather than after a share of a table that is nearly
-- always small.
CREATE TABLE company_count_deltas (
    workspace_id  text NOT NULL,
    company_id    text NOT NULL,
    n             bigint NOT NULL
) WITH (autovacuum_vacuum_scale_factor = 0, autovacuum_vacuum_threshold = 1000);
CREATE INDEX company_count_deltas_company ON company_count_deltas (workspace_id, company_id);

-- company_counts_fold folds ws's changes that this transaction can see, unless another transaction is
-- folding ws (then they wait for a later fold). It is a no-op under a snapshot older than the statement:
-- a fold there could try to delete changes a fold that committed meanwhile already took.
CREATE FUNCTION company_counts_fold(ws text) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    IF current_setting('transaction_isolation') <> 'read committed'
            OR NOT pg_try_advisory_xact_lock(hashtext('company_counts'), hashtext(ws)) THEN
        RETURN;
    END IF;
    WITH d AS (
        DELETE FROM company_count_deltas WHERE workspace_id = ws RETURNING company_id, n
    ), s AS (
        SELECT company_id, sum(n) AS n FROM d GROUP BY 1 HAVING sum(n) <> 0
    ), locked AS (
        SELECT c.id FROM companies c JOIN s ON c.workspace_id = ws AND c.id = s.company_id
        ORDER BY c.id FOR NO KEY UPDATE OF c
    )
    UPDATE companies c SET feedback_count = c.feedback_count + s.n
    FROM s JOIN locked l ON l.id = s.company_id
    WHERE c.workspace_id = ws AND c.id = s.company_id;
END $$;

-- An insert appends one change per company it added records to; a statement that appends k changes folds
-- with a chance of k in 256 (always from 256 on), each workspace it wrote to.
CREATE OR REPLACE FUNCTION records_count_insert() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    k bigint;
    ws text;
BEGIN
    INSERT INTO company_count_deltas (workspace_id, company_id, n)
        SELECT workspace_id, company_id, count(*) FROM new_rows WHERE company_id <> '' GROUP BY 1, 2;
    GET DIAGNOSTICS k = ROW_COUNT;
    IF k > 0 AND random() * 256 < k THEN
        FOR ws IN SELECT DISTINCT workspace_id FROM new_rows WHERE company_id <> '' LOOP
            PERFORM company_counts_fold(ws);
        END LOOP;
    END IF;
    RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION records_count_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO company_count_deltas (workspace_id, company_id, n)
        SELECT workspace_id, company_id, -count(*) FROM old_rows WHERE company_id <> '' GROUP BY 1, 2;
    RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION records_company_moved() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO company_count_deltas (workspace_id, company_id, n)
        SELECT old.workspace_id, old.company_id, -1 WHERE old.company_id <> ''
        UNION ALL
        SELECT new.workspace_id, new.company_id, 1 WHERE new.company_id <> '';
    RETURN NULL;
END $$;
