-- The failed rows of every import run are kept with the run, so that they can be downloaded whichever way
-- the run was started. failed_header is the input's header row, and cells each row's cells as read, both
-- as JSON arrays of strings (text, not jsonb: a cell may hold characters jsonb refuses). The importer
-- bounds how many rows a run keeps; a run's rows go with it.
ALTER TABLE import_runs ADD COLUMN failed_header text NOT NULL DEFAULT '[]';
CREATE TABLE import_failed_rows (
    run_id        text NOT NULL REFERENCES import_runs (id) ON DELETE CASCADE,
    line          integer NOT NULL,
    workspace_id  text NOT NULL,
    reason        text NOT NULL,
    cells         text NOT NULL,
    PRIMARY KEY (run_id, line)
);
