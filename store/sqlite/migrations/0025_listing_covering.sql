-- The listing index also carries the columns that most listings test on every row they walk (status,
-- source) and the update time a date window is sorted by, so that walking it reads the records table only
-- for the rows that pass.
DROP INDEX records_listing;
CREATE INDEX records_listing ON records(workspace_id, type, created_at, id, status, source, updated_at);
