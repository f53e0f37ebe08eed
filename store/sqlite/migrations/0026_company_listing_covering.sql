-- A listing by company walks this index in order and tests every entry it reads: carrying the workspace,
-- the status, the source and the update time, as the workspace's listing index does, lets that walk read
-- a record's row only once the record has passed those tests (its status sits after the long text columns).
DROP INDEX records_company_listing;
CREATE INDEX records_company_listing ON records(company_id, type, created_at, id, workspace_id, status, source, updated_at)
    WHERE company_id IS NOT NULL;
