-- An Idea's accounts are the companies of its linked feedback, ranked by how many links each has. Read
-- from the links, a page of Ideas costs one index entry per link, and the Ideas a demand listing shows
-- first are the ones with the most links. Counted here per Idea and company, a page costs one entry per
-- company instead. Only links with a company are counted, and a count that falls to zero is removed.
--
-- Kept by statement triggers on record_links, so that every path that links, unlinks, moves a link or
-- changes a feedback's company (which rewrites its links' company_id) keeps it without knowing of it.
-- Each statement adds its changes grouped by key and in key order, so that two statements that change
-- the same counts take their row locks in the same order.
CREATE TABLE record_link_companies (
    workspace_id  text NOT NULL,
    target_id     text NOT NULL,
    company_id    text NOT NULL,
    n             integer NOT NULL,
    PRIMARY KEY (workspace_id, target_id, company_id)
);

-- One function for the three triggers: a statement's links counted by key (new ones up, old ones down),
-- added in key order; the counts that fell to zero, which only old links can make, are removed.
CREATE FUNCTION record_link_companies_follow() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        INSERT INTO record_link_companies AS c (workspace_id, target_id, company_id, n)
        SELECT workspace_id, target_id, company_id, count(*) FROM new_links WHERE company_id <> ''
        GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
        ON CONFLICT (workspace_id, target_id, company_id) DO UPDATE SET n = c.n + EXCLUDED.n;
        RETURN NULL;
    ELSIF TG_OP = 'DELETE' THEN
        INSERT INTO record_link_companies AS c (workspace_id, target_id, company_id, n)
        SELECT workspace_id, target_id, company_id, -count(*) FROM old_links WHERE company_id <> ''
        GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
        ON CONFLICT (workspace_id, target_id, company_id) DO UPDATE SET n = c.n + EXCLUDED.n;
    ELSE
        INSERT INTO record_link_companies AS c (workspace_id, target_id, company_id, n)
        SELECT workspace_id, target_id, company_id, sum(k) FROM (
            SELECT workspace_id, target_id, company_id, 1 AS k FROM new_links WHERE company_id <> ''
            UNION ALL
            SELECT workspace_id, target_id, company_id, -1 FROM old_links WHERE company_id <> '') x
        GROUP BY 1, 2, 3 HAVING sum(k) <> 0 ORDER BY 1, 2, 3
        ON CONFLICT (workspace_id, target_id, company_id) DO UPDATE SET n = c.n + EXCLUDED.n;
    END IF;
    DELETE FROM record_link_companies c USING (SELECT DISTINCT workspace_id, target_id, company_id FROM old_links) o
    WHERE c.workspace_id = o.workspace_id AND c.target_id = o.target_id AND c.company_id = o.company_id AND c.n <= 0;
    RETURN NULL;
END $$;

CREATE TRIGGER record_link_companies_insert AFTER INSERT ON record_links
    REFERENCING NEW TABLE AS new_links FOR EACH STATEMENT EXECUTE FUNCTION record_link_companies_follow();
CREATE TRIGGER record_link_companies_delete AFTER DELETE ON record_links
    REFERENCING OLD TABLE AS old_links FOR EACH STATEMENT EXECUTE FUNCTION record_link_companies_follow();
CREATE TRIGGER record_link_companies_update AFTER UPDATE ON record_links
    REFERENCING OLD TABLE AS old_links NEW TABLE AS new_links
    FOR EACH STATEMENT EXECUTE FUNCTION record_link_companies_follow();

-- The links written before this migration.
INSERT INTO record_link_companies (workspace_id, target_id, company_id, n)
SELECT workspace_id, target_id, company_id, count(*) FROM record_links WHERE company_id <> ''
GROUP BY 1, 2, 3;
ANALYZE record_link_companies;
