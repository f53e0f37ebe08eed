-- Signals read a roll-up instead of every insight of a window. record_themes holds each record's share of
-- each theme its insights name (day and company copied from the record, so that a deletion in any order
-- still finds them); theme_days sums those shares per workspace, UTC day of the record's creation and
-- theme; theme_day_companies counts the insights per company. The insight write adds its records' shares
-- in its own transaction, set-based for the whole batch (rollupRecords); triggers take shares away on
-- every deletion of an insight (re-extraction, record deletion, undo) and move them on a change of a
-- record's company, so that those paths need not know of the roll-up. Days are whole days since the Unix
-- epoch.
CREATE TABLE record_themes (
    workspace_id  TEXT NOT NULL,
    record_id     TEXT NOT NULL,
    theme         TEXT NOT NULL,
    day           INTEGER NOT NULL,
    created_at    INTEGER NOT NULL,
    company_id    TEXT NOT NULL,
    n             INTEGER NOT NULL,
    score         REAL NOT NULL,
    req           INTEGER NOT NULL,
    prob          INTEGER NOT NULL,
    praise        INTEGER NOT NULL,
    quest         INTEGER NOT NULL,
    PRIMARY KEY (workspace_id, record_id, theme)
) WITHOUT ROWID;
-- A signal's examples: the newest records of a theme within the window.
CREATE INDEX record_themes_examples ON record_themes (workspace_id, theme, created_at, record_id);

CREATE TABLE theme_days (
    workspace_id  TEXT NOT NULL,
    day           INTEGER NOT NULL,
    theme         TEXT NOT NULL,
    n             INTEGER NOT NULL,
    recs          INTEGER NOT NULL,
    score         REAL NOT NULL,
    req           INTEGER NOT NULL,
    prob          INTEGER NOT NULL,
    praise        INTEGER NOT NULL,
    quest         INTEGER NOT NULL,
    PRIMARY KEY (workspace_id, day, theme)
) WITHOUT ROWID;

CREATE TABLE theme_day_companies (
    workspace_id  TEXT NOT NULL,
    theme         TEXT NOT NULL,
    day           INTEGER NOT NULL,
    company_id    TEXT NOT NULL,
    n             INTEGER NOT NULL,
    PRIMARY KEY (workspace_id, theme, day, company_id)
) WITHOUT ROWID;

-- Backfill from the insights already stored: an insight counts once per distinct non-blank theme.
INSERT INTO record_themes (workspace_id, record_id, theme, day, created_at, company_id, n, score, req, prob, praise, quest)
SELECT i.workspace_id, i.record_id, t.theme, r.created_at / 86400000, r.created_at, coalesce(r.company_id, ''),
    count(*), total(i.sentiment_score), sum(i.kind = 'request'), sum(i.kind = 'problem'), sum(i.kind = 'praise'),
    sum(i.kind = 'question')
FROM (SELECT DISTINCT i.id AS iid, je.value AS theme FROM insights i, json_each(i.themes) je
      WHERE je.type = 'text' AND je.value <> '') t
JOIN insights i ON i.id = t.iid
JOIN records r ON r.id = i.record_id AND r.workspace_id = i.workspace_id
GROUP BY i.workspace_id, i.record_id, t.theme;

INSERT INTO theme_days (workspace_id, day, theme, n, recs, score, req, prob, praise, quest)
SELECT workspace_id, day, theme, sum(n), count(*), total(score), sum(req), sum(prob), sum(praise), sum(quest)
FROM record_themes GROUP BY workspace_id, day, theme;

INSERT INTO theme_day_companies (workspace_id, theme, day, company_id, n)
SELECT workspace_id, theme, day, company_id, sum(n) FROM record_themes WHERE company_id <> ''
GROUP BY workspace_id, theme, day, company_id;

CREATE TRIGGER insights_rollup_delete AFTER DELETE ON insights BEGIN
    UPDATE record_themes SET n = n - 1, score = score - old.sentiment_score, req = req - (old.kind = 'request'),
        prob = prob - (old.kind = 'problem'), praise = praise - (old.kind = 'praise'), quest = quest - (old.kind = 'question')
    WHERE workspace_id = old.workspace_id AND record_id = old.record_id
        AND theme IN (SELECT value FROM json_each(old.themes) WHERE type = 'text');
    UPDATE theme_days SET n = n - 1, score = score - old.sentiment_score, req = req - (old.kind = 'request'),
        prob = prob - (old.kind = 'problem'), praise = praise - (old.kind = 'praise'), quest = quest - (old.kind = 'question'),
        recs = recs - (SELECT x.n <= 0 FROM record_themes x WHERE x.workspace_id = old.workspace_id
                       AND x.record_id = old.record_id AND x.theme = theme_days.theme)
    WHERE workspace_id = old.workspace_id AND (day, theme) IN (SELECT x.day, x.theme FROM record_themes x
        WHERE x.workspace_id = old.workspace_id AND x.record_id = old.record_id
            AND x.theme IN (SELECT value FROM json_each(old.themes) WHERE type = 'text'));
    UPDATE theme_day_companies SET n = n - 1
    WHERE workspace_id = old.workspace_id AND (theme, day, company_id) IN (SELECT x.theme, x.day, x.company_id
        FROM record_themes x WHERE x.workspace_id = old.workspace_id AND x.record_id = old.record_id
            AND x.company_id <> '' AND x.theme IN (SELECT value FROM json_each(old.themes) WHERE type = 'text'));
    DELETE FROM theme_days WHERE workspace_id = old.workspace_id AND n <= 0 AND (day, theme) IN (SELECT x.day, x.theme
        FROM record_themes x WHERE x.workspace_id = old.workspace_id AND x.record_id = old.record_id
            AND x.theme IN (SELECT value FROM json_each(old.themes) WHERE type = 'text'));
    DELETE FROM theme_day_companies WHERE workspace_id = old.workspace_id AND n <= 0
        AND (theme, day, company_id) IN (SELECT x.theme, x.day, x.company_id FROM record_themes x
            WHERE x.workspace_id = old.workspace_id AND x.record_id = old.record_id
                AND x.theme IN (SELECT value FROM json_each(old.themes) WHERE type = 'text'));
    DELETE FROM record_themes WHERE workspace_id = old.workspace_id AND record_id = old.record_id AND n <= 0;
END;

-- An edit of the themes, kind or score of an insight in place counts as its deletion and insertion.
CREATE TRIGGER insights_rollup_update AFTER UPDATE OF themes, kind, sentiment_score, record_id, workspace_id ON insights
WHEN old.themes IS NOT new.themes OR old.kind IS NOT new.kind OR old.sentiment_score IS NOT new.sentiment_score
    OR old.record_id IS NOT new.record_id OR old.workspace_id IS NOT new.workspace_id
BEGIN
    SELECT raise(ABORT, 'insights: themes, kind, score and record are written by replacing the insight');
END;

-- A record that changes company moves its insights' company counts with it.
CREATE TRIGGER records_rollup_company AFTER UPDATE OF company_id ON records
WHEN coalesce(old.company_id, '') <> coalesce(new.company_id, '') BEGIN
    UPDATE theme_day_companies SET n = n - (SELECT x.n FROM record_themes x WHERE x.workspace_id = new.workspace_id
            AND x.record_id = new.id AND x.theme = theme_day_companies.theme)
    WHERE workspace_id = new.workspace_id AND company_id = coalesce(old.company_id, '')
        AND (theme, day) IN (SELECT x.theme, x.day FROM record_themes x WHERE x.workspace_id = new.workspace_id AND x.record_id = new.id);
    DELETE FROM theme_day_companies WHERE workspace_id = new.workspace_id AND company_id = coalesce(old.company_id, '') AND n <= 0
        AND (theme, day) IN (SELECT x.theme, x.day FROM record_themes x WHERE x.workspace_id = new.workspace_id AND x.record_id = new.id);
    INSERT INTO theme_day_companies (workspace_id, theme, day, company_id, n)
    SELECT x.workspace_id, x.theme, x.day, new.company_id, x.n FROM record_themes x
    WHERE x.workspace_id = new.workspace_id AND x.record_id = new.id AND coalesce(new.company_id, '') <> ''
    ON CONFLICT (workspace_id, theme, day, company_id) DO UPDATE SET n = n + excluded.n;
    UPDATE record_themes SET company_id = coalesce(new.company_id, '') WHERE workspace_id = new.workspace_id AND record_id = new.id;
END;
