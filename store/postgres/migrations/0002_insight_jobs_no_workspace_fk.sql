-- A job is only ever written in the statement that inserts its record, whose own foreign key already proves
-- the workspace exists; checking it again cost a lookup and row lock per job (about a third of the
-- records-and-jobs statement of a CSV import batch).
ALTER TABLE insight_jobs DROP CONSTRAINT insight_jobs_workspace_id_fkey;
