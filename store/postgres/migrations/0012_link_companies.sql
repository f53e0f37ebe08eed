-- An Idea's accounts are the companies of the Feedback linked to it. Read through the feedback rows, a
-- page of Ideas costs a lookup per link whatever the share of feedback with a company; kept in the link,
-- the accounts of a page are read from the index below alone, and links without a company are not in it.
-- Triggers keep the copy, so that every path that links, moves a link or changes a feedback's company
-- (edits, merges, erasure, undo) keeps it without knowing of it.
ALTER TABLE record_links ADD COLUMN company_id text NOT NULL DEFAULT '';
UPDATE record_links l SET company_id = f.company_id
FROM records f WHERE f.workspace_id = l.workspace_id AND f.id = l.feedback_id AND f.company_id <> '';
CREATE INDEX record_links_target_company ON record_links (workspace_id, target_id, company_id) WHERE company_id <> '';

CREATE FUNCTION record_links_company() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    SELECT f.company_id INTO NEW.company_id FROM records f
    WHERE f.workspace_id = NEW.workspace_id AND f.id = NEW.feedback_id;
    NEW.company_id = coalesce(NEW.company_id, '');
    RETURN NEW;
END $$;
CREATE TRIGGER record_links_company BEFORE INSERT OR UPDATE OF workspace_id, feedback_id ON record_links
    FOR EACH ROW EXECUTE FUNCTION record_links_company();

CREATE FUNCTION records_company_links() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE record_links SET company_id = NEW.company_id
    WHERE workspace_id = NEW.workspace_id AND feedback_id = NEW.id;
    RETURN NULL;
END $$;
-- Only a change of company fires it: the edits that keep a record's company pay a comparison.
CREATE TRIGGER records_company_links AFTER UPDATE OF company_id ON records
    FOR EACH ROW WHEN (OLD.company_id IS DISTINCT FROM NEW.company_id) EXECUTE FUNCTION records_company_links();
