-- Listings by tag in creation order: each record's tags, one row per tag, in tag, type and date order.
-- records.tag_ids is an array, which no ordered index can key by element, so a listing filtered by a rare
-- tag walked the type's records newest first, testing every array until a page matched. A listing by tag
-- now walks that tag's entries here in its order and reads each record by its key (see tagWalk in
-- query.go for which listings do).
--
-- Kept by the triggers below in the transaction that writes the record: a create or import of an
-- untagged record writes nothing here, and an update writes here only when the tags, the type or the
-- creation date change. The columns the record shares with this table have the records table's names, so
-- that a listing joins the two USING them.
CREATE TABLE record_tags (
    workspace_id  text NOT NULL,
    tag_id        text NOT NULL,
    type          text NOT NULL,
    created_at    timestamptz NOT NULL,
    id            text NOT NULL,
    PRIMARY KEY (workspace_id, tag_id, type, created_at, id)
);

-- One function for the three triggers: a record's old entries go, its new ones come.
CREATE FUNCTION record_tags_follow() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP <> 'INSERT' THEN
        DELETE FROM record_tags
        WHERE workspace_id = OLD.workspace_id AND tag_id = ANY (OLD.tag_ids) AND type = OLD.type
          AND created_at = OLD.created_at AND id = OLD.id;
    END IF;
    IF TG_OP <> 'DELETE' THEN
        INSERT INTO record_tags (workspace_id, tag_id, type, created_at, id)
        SELECT DISTINCT NEW.workspace_id, t, NEW.type, NEW.created_at, NEW.id FROM unnest(NEW.tag_ids) t;
    END IF;
    RETURN NULL;
END $$;

-- Row triggers with WHEN conditions: the condition is tested without calling the function, so an untagged
-- create and an update that leaves the tags alone cost no more than before.
CREATE TRIGGER record_tags_insert AFTER INSERT ON records
    FOR EACH ROW WHEN (cardinality(NEW.tag_ids) > 0) EXECUTE FUNCTION record_tags_follow();
CREATE TRIGGER record_tags_delete AFTER DELETE ON records
    FOR EACH ROW WHEN (cardinality(OLD.tag_ids) > 0) EXECUTE FUNCTION record_tags_follow();
CREATE TRIGGER record_tags_update AFTER UPDATE OF tag_ids, type, created_at, workspace_id, id ON records
    FOR EACH ROW WHEN (OLD.tag_ids IS DISTINCT FROM NEW.tag_ids OR OLD.type IS DISTINCT FROM NEW.type
        OR OLD.created_at IS DISTINCT FROM NEW.created_at OR OLD.workspace_id IS DISTINCT FROM NEW.workspace_id
        OR OLD.id IS DISTINCT FROM NEW.id)
    EXECUTE FUNCTION record_tags_follow();

-- The tags of the records written before this migration.
INSERT INTO record_tags (workspace_id, tag_id, type, created_at, id)
SELECT DISTINCT r.workspace_id, t, r.type, r.created_at, r.id FROM records r, unnest(r.tag_ids) t;
ANALYZE record_tags;
