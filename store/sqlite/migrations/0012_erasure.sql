-- Erasing a customer (ForgetContact) replaces the dedup keys built from their address by keyed hashes:
-- "erasure" is that key, made once like "cursor".
INSERT INTO store_secrets (name, value) VALUES ('erasure', randomblob(32));

-- Counters that a writer compares with what it cached: erasure deletes contacts, which processes that
-- remember contacts (resolved.go) must then forget, also when another process (the CLI) erased them.
CREATE TABLE store_epochs (
    name  TEXT PRIMARY KEY,
    n     INTEGER NOT NULL
);
INSERT INTO store_epochs (name, n) VALUES ('contacts', 0);

-- Erasure finds a contact's records through it, and deleting the contact makes SQLite look for records that
-- still point at it: without an index both read every record of the store.
CREATE INDEX records_contact ON records(contact_id) WHERE contact_id IS NOT NULL;
