-- The console's ideas board lists each status by demand. records_demand walks a type's every record to
-- find a status that few or none have (the whole type for an empty column); with the status in the key, a
-- column reads just its own rows.
CREATE INDEX records_demand_status ON records(workspace_id, type, status, feedback_count, created_at, id) WHERE type IN ('Idea', 'Feature');
