-- A listing by company or by customer reads that customer's records in the listing's order: without these
-- the planner walks every record of the type in order and tests each one, which for a small company or
-- one customer means reading the whole workspace.
CREATE INDEX records_company_listing ON records(company_id, type, created_at, id) WHERE company_id IS NOT NULL;
CREATE INDEX records_customer_listing ON records(workspace_id, lower(customer_email), type, created_at, id) WHERE customer_email <> '';
