-- Company counts, kept with less work per write. Every UPDATE of records (a status moved, an erasure's
-- chunk) used to capture both transition tables and join them to find records moved to another company,
-- nearly always none; a row trigger that fires only when company_id changes does nothing for the others.
-- Such moves come one record at a time (an edit of the customer, a merge), so their company locks need no
-- ordering. Inserts keep the statement trigger (a batch adds to each company once), with the lock in id
-- order and the addition in one statement instead of two.
DROP TRIGGER records_count_update ON records;
DROP FUNCTION records_count_update();
CREATE FUNCTION records_company_moved() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE companies SET feedback_count = feedback_count - 1
        WHERE workspace_id = old.workspace_id AND id = old.company_id AND old.company_id <> '';
    UPDATE companies SET feedback_count = feedback_count + 1
        WHERE workspace_id = new.workspace_id AND id = new.company_id AND new.company_id <> '';
    RETURN NULL;
END $$;
CREATE TRIGGER records_count_update AFTER UPDATE OF company_id ON records
    FOR EACH ROW WHEN (old.company_id IS DISTINCT FROM new.company_id) EXECUTE FUNCTION records_company_moved();

CREATE OR REPLACE FUNCTION records_count_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    WITH d AS (
        SELECT workspace_id, company_id, count(*) AS n FROM new_rows WHERE company_id <> '' GROUP BY 1, 2
    ), locked AS (
        SELECT c.workspace_id, c.id FROM companies c JOIN d ON d.workspace_id = c.workspace_id AND d.company_id = c.id
        ORDER BY c.workspace_id, c.id FOR UPDATE OF c
    )
    UPDATE companies c SET feedback_count = c.feedback_count + d.n
    FROM d JOIN locked l ON l.workspace_id = d.workspace_id AND l.id = d.company_id
    WHERE c.workspace_id = d.workspace_id AND c.id = d.company_id;
    RETURN NULL;
END $$;
