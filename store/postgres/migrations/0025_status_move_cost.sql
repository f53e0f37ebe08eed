-- A status move (the commonest edit) costs less.
--
-- A record's history no longer checks its record by foreign key: every history entry is written by the
-- statement or transaction that changes its record, so the record is there, and the check was a query and a
-- row lock on each entry. The history goes with its record through the store's two delete paths, which
-- delete it after the record's row: a change that committed its entry while the delete waited on the
-- row's lock is then deleted too, as the cascade did.
ALTER TABLE record_history DROP CONSTRAINT record_history_workspace_id_record_id_fkey;

-- The labels of one record (assignee name, product label, tag labels in the record's tag order, company
-- and contact names), each '' (or no tags) when the record names none. A function, so that a statement
-- reading one record calls it only when the record names something to label: subqueries in the statement
-- itself are prepared on every run even when their CASE skips them.
CREATE TYPE record_label_names AS (assignee text, product text, tags text[], company text, contact text);
CREATE FUNCTION record_labels(in_ws text, in_assignee text, in_product text, in_tags text[], in_company text, in_contact text)
RETURNS record_label_names LANGUAGE plpgsql STABLE AS $$
DECLARE
    l record_label_names := ROW('', '', '{}', '', '');
BEGIN
    IF in_assignee <> '' THEN
        l.assignee := coalesce((SELECT u.name FROM users u WHERE u.workspace_id = in_ws AND u.id = in_assignee), '');
    END IF;
    IF in_product <> '' THEN
        l.product := coalesce((SELECT p.label FROM lookups p
            WHERE p.workspace_id = in_ws AND p.id = in_product AND p.kind = 'product'), '');
    END IF;
    IF cardinality(in_tags) > 0 THEN
        l.tags := ARRAY(SELECT t.label FROM unnest(in_tags) WITH ORDINALITY AS x(id, n)
            JOIN lookups t ON t.workspace_id = in_ws AND t.id = x.id ORDER BY x.n);
    END IF;
    IF in_company <> '' THEN
        l.company := coalesce((SELECT c.name FROM companies c WHERE c.workspace_id = in_ws AND c.id = in_company), '');
    END IF;
    IF in_contact <> '' THEN
        l.contact := coalesce((SELECT ct.name FROM contacts ct WHERE ct.workspace_id = in_ws AND ct.id = in_contact), '');
    END IF;
    RETURN l;
END $$;
