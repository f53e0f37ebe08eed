-- Listings in updated order within a window of creation dates: records_updated walks the type's records
-- by last change, and without created_at in the index every record newer than the window was fetched
-- from the table only to be dropped by the window. As the index's last column the window is tested on
-- the index entries, so the walk fetches only the records in the window. created_at never changes, and
-- an update of updated_at rewrites this entry anyway, so writes cost no more entries.
DROP INDEX records_updated;
CREATE INDEX records_updated ON records (workspace_id, type, updated_at, id, created_at);
