-- Secrets of this store, made once when the table is created: "cursor" keys the HMAC that signs paging
-- cursors, so that a cursor is only accepted when this store issued it. gen_random_uuid() draws from a
-- strong random source; two of them give 244 random bits.
CREATE TABLE store_secrets (
    name  text PRIMARY KEY,
    value bytea NOT NULL
);
INSERT INTO store_secrets (name, value)
    VALUES ('cursor', decode(replace(gen_random_uuid()::text || gen_random_uuid()::text, '-', ''), 'hex'));
