-- Records' seqs gain the workspace: seq = workspace number << 48 | reversed hour block << 24 | counter
-- (seq.go). A search then walks only its workspace's part of the trigram index.
ALTER TABLE workspaces ADD COLUMN num INTEGER;
UPDATE workspaces SET num = rowid;
CREATE UNIQUE INDEX workspaces_num ON workspaces(num);

-- Renumber existing records. The new seqs are positive and at least 2^48, the old ones were not (short of
-- dates before the year 56), so no row takes a seq another row still holds while the update runs.
UPDATE records SET seq = m.new FROM (
    SELECT r.seq AS old,
           -- In SQL, << and | bind equally (left to right): every shift needs its parentheses.
           (w.num << 48) | ((8388607 - b.block) << 24)
             | (row_number() OVER (PARTITION BY r.workspace_id, b.block ORDER BY r.created_at, r.id) - 1) AS new
    FROM records r
    JOIN workspaces w ON w.id = r.workspace_id
    JOIN (SELECT seq,
                 max(-8388608, min(8388607,
                     CASE WHEN created_at >= 0 THEN created_at / 3600000
                          ELSE -((-created_at + 3599999) / 3600000) END)) AS block
          FROM records) b ON b.seq = r.seq
) AS m
WHERE records.seq = m.old;

-- The full-text rows follow their records' new seqs.
INSERT INTO records_fts(records_fts) VALUES ('rebuild');
