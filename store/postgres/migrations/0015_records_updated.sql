-- The suggestion index refreshes a workspace by reading its Ideas and Features changed since its last read
-- (updated_at >= …). Without this index that read walks every Idea or Feature of the workspace in the listing
-- index; with it, only the changed ones. Partial, like records_demand: feedback creates do not write it.
CREATE INDEX records_updated ON records (workspace_id, type, updated_at) WHERE type IN ('Idea', 'Feature');
