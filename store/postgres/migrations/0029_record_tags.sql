-- Listings by tag in creation order: a tag's records sorted by tag, then type and date. records.tag_ids
-- is an array, which no ordered index can key by element, so a listing filtered by a rare tag walked the
-- type's records newest first and tested every array until a page matched. A listing now joins the
-- records of one of its tags through this table, and the planner chooses whether to walk the tag's
-- entries in order (a rare tag) or the records' own index, probing this table's key (a common tag, or a
-- rarer filter beside it).
--
-- One row per tag of a record, kept by the triggers below in the transaction that writes the record: a
-- create or import of an untagged record writes nothing here, and an update writes here only when the
-- tags, the type or the creation date change. The columns the record shares with this table have the
-- records table's names, so that a listing joins the two USING them.
CREATE TABLE record_tags (
    workspace_id  text NOT NULL,
    tag_id        text NOT NULL,
    type          text NOT NULL,
    created_at    timestamptz NOT NULL,
    id            text NOT NULL,
    PRIMARY KEY (workspace_id, tag_id, type, created_at, id)
);

CREATE FUNCTION record_tags_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO record_tags (workspace_id, tag_id, type, created_at, id)
    SELECT DISTINCT NEW.workspace_id, t, NEW.type, NEW.created_at, NEW.id FROM unnest(NEW.tag_ids) t;
    RETURN NULL;
END $$;

CREATE FUNCTION record_tags_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    DELETE FROM record_tags
    WHERE workspace_id = OLD.workspace_id AND tag_id = ANY (OLD.tag_ids) AND type = OLD.type
      AND created_at = OLD.created_at AND id = OLD.id;
    RETURN NULL;
END $$;

CREATE FUNCTION record_tags_update() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    DELETE FROM record_tags
    WHERE workspace_id = OLD.workspace_id AND tag_id = ANY (OLD.tag_ids) AND type = OLD.type
      AND created_at = OLD.created_at AND id = OLD.id;
    INSERT INTO record_tags (workspace_id, tag_id, type, created_at, id)
    SELECT DISTINCT NEW.workspace_id, t, NEW.type, NEW.created_at, NEW.id FROM unnest(NEW.tag_ids) t;
    RETURN NULL;
END $$;

-- Row triggers with WHEN conditions: the condition is tested without calling the function, so an untagged
-- create and an update that leaves the tags alone cost no more than before.
CREATE TRIGGER record_tags_insert AFTER INSERT ON records
    FOR EACH ROW WHEN (cardinality(NEW.tag_ids) > 0) EXECUTE FUNCTION record_tags_insert();
CREATE TRIGGER record_tags_delete AFTER DELETE ON records
    FOR EACH ROW WHEN (cardinality(OLD.tag_ids) > 0) EXECUTE FUNCTION record_tags_delete();
CREATE TRIGGER record_tags_update AFTER UPDATE OF tag_ids, type, created_at, workspace_id, id ON records
    FOR EACH ROW WHEN (OLD.tag_ids IS DISTINCT FROM NEW.tag_ids OR OLD.type IS DISTINCT FROM NEW.type
        OR OLD.created_at IS DISTINCT FROM NEW.created_at OR OLD.workspace_id IS DISTINCT FROM NEW.workspace_id
        OR OLD.id IS DISTINCT FROM NEW.id)
    EXECUTE FUNCTION record_tags_update();

INSERT INTO record_tags (workspace_id, tag_id, type, created_at, id)
SELECT DISTINCT r.workspace_id, t, r.type, r.created_at, r.id FROM records r, unnest(r.tag_ids) t;
ANALYZE record_tags;
