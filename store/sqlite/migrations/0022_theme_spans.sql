-- Signals of a long window summed one row per theme, company and day of it: a busy theme's companies
-- alone were a row per company for every day. theme_span_days and theme_span_companies hold the same sums
-- as theme_days and theme_day_companies over aligned spans of 4, 16 and 64 days (a span's first day is a
-- multiple of its length, in days since the Unix epoch), so that a window reads its edges day by day and
-- its middle span by span: a handful of rows per theme and company whatever the window's length. Triggers
-- on the day tables keep the spans, so every path that writes a day row (the insight batch, the deletion
-- triggers, a record's company moving) keeps them too.
CREATE TABLE theme_span_days (
    workspace_id  TEXT NOT NULL,
    span          INTEGER NOT NULL,
    first_day     INTEGER NOT NULL,
    theme         TEXT NOT NULL,
    n             INTEGER NOT NULL,
    recs          INTEGER NOT NULL,
    score         REAL NOT NULL,
    req           INTEGER NOT NULL,
    prob          INTEGER NOT NULL,
    praise        INTEGER NOT NULL,
    quest         INTEGER NOT NULL,
    PRIMARY KEY (workspace_id, span, first_day, theme)
) WITHOUT ROWID;

CREATE TABLE theme_span_companies (
    workspace_id  TEXT NOT NULL,
    theme         TEXT NOT NULL,
    span          INTEGER NOT NULL,
    first_day     INTEGER NOT NULL,
    company_id    TEXT NOT NULL,
    n             INTEGER NOT NULL,
    PRIMARY KEY (workspace_id, theme, span, first_day, company_id)
) WITHOUT ROWID;

CREATE TABLE theme_span_lengths (span INTEGER PRIMARY KEY);
INSERT INTO theme_span_lengths VALUES (4), (16), (64);

-- A span's first day: the day minus its remainder by the span's length (days before the epoch round down).
INSERT INTO theme_span_days (workspace_id, span, first_day, theme, n, recs, score, req, prob, praise, quest)
SELECT d.workspace_id, l.span, d.day - ((d.day % l.span) + l.span) % l.span, d.theme, sum(d.n), sum(d.recs), total(d.score),
    sum(d.req), sum(d.prob), sum(d.praise), sum(d.quest)
FROM theme_days d, theme_span_lengths l GROUP BY 1, 2, 3, 4;

INSERT INTO theme_span_companies (workspace_id, theme, span, first_day, company_id, n)
SELECT c.workspace_id, c.theme, l.span, c.day - ((c.day % l.span) + l.span) % l.span, c.company_id, sum(c.n)
FROM theme_day_companies c, theme_span_lengths l GROUP BY 1, 2, 3, 4, 5;

-- Each write of a day row adds its new values to its spans and takes its old ones away; spans left empty
-- go.
CREATE TRIGGER theme_days_spans_insert AFTER INSERT ON theme_days BEGIN
    INSERT INTO theme_span_days (workspace_id, span, first_day, theme, n, recs, score, req, prob, praise, quest)
    SELECT new.workspace_id, span, new.day - ((new.day % span) + span) % span, new.theme, new.n, new.recs, new.score,
        new.req, new.prob, new.praise, new.quest FROM theme_span_lengths WHERE true
    ON CONFLICT (workspace_id, span, first_day, theme) DO UPDATE SET n = n + excluded.n, recs = recs + excluded.recs,
        score = score + excluded.score, req = req + excluded.req, prob = prob + excluded.prob,
        praise = praise + excluded.praise, quest = quest + excluded.quest;
END;

CREATE TRIGGER theme_days_spans_update AFTER UPDATE ON theme_days BEGIN
    INSERT INTO theme_span_days (workspace_id, span, first_day, theme, n, recs, score, req, prob, praise, quest)
    SELECT new.workspace_id, span, new.day - ((new.day % span) + span) % span, new.theme, new.n, new.recs, new.score,
        new.req, new.prob, new.praise, new.quest FROM theme_span_lengths
    UNION ALL SELECT old.workspace_id, span, old.day - ((old.day % span) + span) % span, old.theme, -old.n, -old.recs,
        -old.score, -old.req, -old.prob, -old.praise, -old.quest FROM theme_span_lengths WHERE true
    ON CONFLICT (workspace_id, span, first_day, theme) DO UPDATE SET n = n + excluded.n, recs = recs + excluded.recs,
        score = score + excluded.score, req = req + excluded.req, prob = prob + excluded.prob,
        praise = praise + excluded.praise, quest = quest + excluded.quest;
    DELETE FROM theme_span_days WHERE workspace_id = old.workspace_id AND theme = old.theme AND n <= 0
        AND (span, first_day) IN (SELECT span, old.day - ((old.day % span) + span) % span FROM theme_span_lengths);
END;

CREATE TRIGGER theme_days_spans_delete AFTER DELETE ON theme_days BEGIN
    INSERT INTO theme_span_days (workspace_id, span, first_day, theme, n, recs, score, req, prob, praise, quest)
    SELECT old.workspace_id, span, old.day - ((old.day % span) + span) % span, old.theme, -old.n, -old.recs,
        -old.score, -old.req, -old.prob, -old.praise, -old.quest FROM theme_span_lengths WHERE true
    ON CONFLICT (workspace_id, span, first_day, theme) DO UPDATE SET n = n + excluded.n, recs = recs + excluded.recs,
        score = score + excluded.score, req = req + excluded.req, prob = prob + excluded.prob,
        praise = praise + excluded.praise, quest = quest + excluded.quest;
    DELETE FROM theme_span_days WHERE workspace_id = old.workspace_id AND theme = old.theme AND n <= 0
        AND (span, first_day) IN (SELECT span, old.day - ((old.day % span) + span) % span FROM theme_span_lengths);
END;

CREATE TRIGGER theme_day_companies_spans_insert AFTER INSERT ON theme_day_companies BEGIN
    INSERT INTO theme_span_companies (workspace_id, theme, span, first_day, company_id, n)
    SELECT new.workspace_id, new.theme, span, new.day - ((new.day % span) + span) % span, new.company_id, new.n
    FROM theme_span_lengths WHERE true
    ON CONFLICT (workspace_id, theme, span, first_day, company_id) DO UPDATE SET n = n + excluded.n;
END;

CREATE TRIGGER theme_day_companies_spans_update AFTER UPDATE ON theme_day_companies BEGIN
    INSERT INTO theme_span_companies (workspace_id, theme, span, first_day, company_id, n)
    SELECT new.workspace_id, new.theme, span, new.day - ((new.day % span) + span) % span, new.company_id, new.n
    FROM theme_span_lengths
    UNION ALL SELECT old.workspace_id, old.theme, span, old.day - ((old.day % span) + span) % span, old.company_id, -old.n
    FROM theme_span_lengths WHERE true
    ON CONFLICT (workspace_id, theme, span, first_day, company_id) DO UPDATE SET n = n + excluded.n;
    DELETE FROM theme_span_companies WHERE workspace_id = old.workspace_id AND theme = old.theme AND company_id = old.company_id
        AND n <= 0 AND (span, first_day) IN (SELECT span, old.day - ((old.day % span) + span) % span FROM theme_span_lengths);
END;

CREATE TRIGGER theme_day_companies_spans_delete AFTER DELETE ON theme_day_companies BEGIN
    INSERT INTO theme_span_companies (workspace_id, theme, span, first_day, company_id, n)
    SELECT old.workspace_id, old.theme, span, old.day - ((old.day % span) + span) % span, old.company_id, -old.n
    FROM theme_span_lengths WHERE true
    ON CONFLICT (workspace_id, theme, span, first_day, company_id) DO UPDATE SET n = n + excluded.n;
    DELETE FROM theme_span_companies WHERE workspace_id = old.workspace_id AND theme = old.theme AND company_id = old.company_id
        AND n <= 0 AND (span, first_day) IN (SELECT span, old.day - ((old.day % span) + span) % span FROM theme_span_lengths);
END;
