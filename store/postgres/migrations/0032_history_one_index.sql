-- A record's history had two indexes: the primary key on seq alone and (workspace_id, record_id, seq), which
-- every read, delete and scrub of the history goes by. Every change of a record (a status move most often)
-- wrote an entry into both. The history is now keyed by the record's columns, so an entry writes one index;
-- seq stays unique through its sequence and still orders a record's entries.
ALTER TABLE record_history DROP CONSTRAINT record_history_pkey;
ALTER TABLE record_history ADD CONSTRAINT record_history_pkey PRIMARY KEY (workspace_id, record_id, seq);
DROP INDEX record_history_record;
