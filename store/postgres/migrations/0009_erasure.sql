-- Erasing a customer (ForgetContact) replaces the dedup keys built from their address by keyed hashes:
-- "erasure" is that key, made once like "cursor".
INSERT INTO store_secrets (name, value)
    VALUES ('erasure', decode(replace(gen_random_uuid()::text || gen_random_uuid()::text, '-', ''), 'hex'));

-- Counters that a replica compares with what it cached: erasure deletes contacts, which every replica's
-- memory of resolved contacts (known.go) must then forget.
CREATE TABLE store_epochs (
    name  text PRIMARY KEY,
    n     bigint NOT NULL
);
INSERT INTO store_epochs (name, n) VALUES ('contacts', 0);
