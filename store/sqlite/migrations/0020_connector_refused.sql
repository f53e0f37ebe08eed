-- A connector entry's refused items are kept apart from its last error: an item the entry will not store
-- is not a fault of the entry. refused is the count since the status row was first written (every writer
-- adds what it refused since its last write, so replicas and restarts add up); last_refused and
-- last_refused_at are the newest refusal any writer reported.
ALTER TABLE connector_statuses ADD COLUMN refused INTEGER NOT NULL DEFAULT 0;
ALTER TABLE connector_statuses ADD COLUMN last_refused TEXT NOT NULL DEFAULT '';
ALTER TABLE connector_statuses ADD COLUMN last_refused_at INTEGER;
