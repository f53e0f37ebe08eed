-- The failed rows of every import run are kept with the run, so that they can be downloaded whichever way
-- the run was started. failed_header is the input's header row, and cells each row's cells as read, both
-- as JSON arrays of strings. The importer bounds how many rows a run keeps; a run's rows go with it.
ALTER TABLE import_runs ADD COLUMN failed_header TEXT NOT NULL DEFAULT '[]';
CREATE TABLE import_failed_rows (
    run_id        TEXT NOT NULL REFERENCES import_runs(id) ON DELETE CASCADE,
    line          INTEGER NOT NULL,
    workspace_id  TEXT NOT NULL,
    reason        TEXT NOT NULL,
    cells         TEXT NOT NULL,
    PRIMARY KEY (run_id, line)
) WITHOUT ROWID;
