-- How many items each connector entry took and refused per UTC day (days since the Unix epoch), for the
-- console's connectors page. Processes add their counts every few seconds. No foreign key to workspaces: a
-- count of an entry whose workspace is gone must not hold back the others written with it.
CREATE TABLE connector_days (
    workspace_id  TEXT NOT NULL,
    name          TEXT NOT NULL,
    day           INTEGER NOT NULL,
    taken         INTEGER NOT NULL DEFAULT 0,
    refused       INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (workspace_id, day, name)
) WITHOUT ROWID;
