-- Secrets of this store, made once when the table is created: "cursor" keys the HMAC that signs paging
-- cursors, so that a cursor is only accepted when this store issued it.
CREATE TABLE store_secrets (
    name  TEXT PRIMARY KEY,
    value BLOB NOT NULL
);
INSERT INTO store_secrets (name, value) VALUES ('cursor', randomblob(32));
