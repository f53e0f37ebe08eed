-- Listings filtered by something rarer than the listing index's walk can afford to skip past: a small
-- company, one customer. Without these the listing reads the workspace's records newest first
-- until a page matches, which for a filter matching a few rows is nearly all of them.
--
-- A company's records in listing order, read directly for a company of any size.
CREATE INDEX records_company ON records (workspace_id, company_id, type, created_at, id);
-- A customer's records by the folded address the filter compares.
CREATE INDEX records_customer ON records (workspace_id, lower(customer_email));
-- Listings in updated order: records_updated served only Ideas and Features (the suggestion index's
-- refresh); every type now, with the id that breaks ties, so that a page of Feedback by its last change is
-- read in order instead of sorted from all of them.
DROP INDEX records_updated;
CREATE INDEX records_updated ON records (workspace_id, type, updated_at, id);
-- The planner knows how rare a folded address is only from statistics of the index's expression, which
-- ANALYZE gathers; until autovacuum's next pass it would take every address to be common.
ANALYZE records;
