-- company_counts_fold as in migration 0026, with the amounts carried by the locked rows: the update joins
-- them to companies by key alone, where joining the changes to the locked rows again was planned as a
-- nested loop comparing every change with every locked row.
CREATE OR REPLACE FUNCTION company_counts_fold(ws text) RETURNS void LANGUAGE plpgsql AS $$
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
        SELECT c.id, s.n FROM companies c JOIN s ON c.workspace_id = ws AND c.id = s.company_id
        ORDER BY c.id FOR NO KEY UPDATE OF c
    )
    UPDATE companies c SET feedback_count = c.feedback_count + l.n
    FROM locked l
    WHERE c.workspace_id = ws AND c.id = l.id;
END $$;
