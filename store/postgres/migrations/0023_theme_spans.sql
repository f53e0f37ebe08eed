-- Signals of a long window summed one row per theme, company and day of it: a busy theme's companies
-- alone were a row per company for every day. theme_span_days and theme_span_companies hold the same sums
-- as theme_days and theme_day_companies over aligned spans of 4, 16 and 64 days (a span's first day is a
-- multiple of its length, in days since the Unix epoch), so that a window reads its edges day by day and
-- its middle span by span: a handful of rows per theme and company whatever the window's length. Statement
-- triggers on the day tables keep the spans, so every path that writes a day row (the insight batch, the
-- deletion triggers, a record's company moving) keeps them too, one statement per day-table statement.
CREATE TABLE theme_span_days (
    workspace_id  text NOT NULL,
    span          integer NOT NULL,
    first_day     integer NOT NULL,
    theme         text NOT NULL,
    n             integer NOT NULL,
    recs          integer NOT NULL,
    score         double precision NOT NULL,
    req           integer NOT NULL,
    prob          integer NOT NULL,
    praise        integer NOT NULL,
    quest         integer NOT NULL,
    PRIMARY KEY (workspace_id, span, first_day, theme)
);

CREATE TABLE theme_span_companies (
    workspace_id  text NOT NULL,
    theme         text NOT NULL,
    span          integer NOT NULL,
    first_day     integer NOT NULL,
    company_id    text NOT NULL,
    n             integer NOT NULL,
    PRIMARY KEY (workspace_id, theme, span, first_day, company_id) INCLUDE (n)
);

-- The first day of the span of length s that holds day d (days before the epoch round down too).
CREATE FUNCTION span_start(d integer, s integer) RETURNS integer LANGUAGE sql IMMUTABLE AS
$$ SELECT d - ((d % s) + s) % s $$;

-- The span lengths, here and in the triggers, are core.SignalSpans.
INSERT INTO theme_span_days (workspace_id, span, first_day, theme, n, recs, score, req, prob, praise, quest)
SELECT d.workspace_id, l.span, span_start(d.day, l.span), d.theme, sum(d.n), sum(d.recs), sum(d.score), sum(d.req),
    sum(d.prob), sum(d.praise), sum(d.quest)
FROM theme_days d CROSS JOIN (VALUES (4), (16), (64)) l (span) GROUP BY 1, 2, 3, 4;

INSERT INTO theme_span_companies (workspace_id, theme, span, first_day, company_id, n)
SELECT c.workspace_id, c.theme, l.span, span_start(c.day, l.span), c.company_id, sum(c.n)
FROM theme_day_companies c CROSS JOIN (VALUES (4), (16), (64)) l (span) GROUP BY 1, 2, 3, 4, 5;

-- Each statement that writes a day table adds what its new rows hold to their spans and takes away what its
-- old rows held, upserting in key order (concurrent batches never wait on each other in a cycle), then
-- drops the spans it emptied, found by key. A transition table exists only for the events that have one,
-- so each event has its own trigger, and theme_span_delta names the tables its event has. A statement that
-- wrote no row (the deletion triggers' clean-up of emptied rows, mostly) costs one look at its rows.
CREATE FUNCTION theme_span_delta(op text) RETURNS text LANGUAGE sql IMMUTABLE AS $$
    SELECT 'WITH delta AS (' || CASE op WHEN 'INSERT' THEN 'SELECT *, 1 AS sign FROM new_rows'
        WHEN 'DELETE' THEN 'SELECT *, -1 AS sign FROM old_rows'
        ELSE 'SELECT *, 1 AS sign FROM new_rows UNION ALL SELECT *, -1 FROM old_rows' END
        || '), keys AS (SELECT d.*, l.span, span_start(d.day, l.span) AS first_day
            FROM delta d CROSS JOIN (VALUES (4), (16), (64)) l (span)) ' $$;

CREATE FUNCTION theme_days_spans() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    e_ws    text[];
    e_span  integer[];
    e_first integer[];
    e_theme text[];
BEGIN
    IF TG_OP = 'DELETE' THEN
        IF NOT EXISTS (SELECT FROM old_rows) THEN
            RETURN NULL;
        END IF;
    ELSIF NOT EXISTS (SELECT FROM new_rows) THEN
        RETURN NULL;
    END IF;
    EXECUTE theme_span_delta(TG_OP) || ', up AS (INSERT INTO theme_span_days AS x (workspace_id, span, first_day, theme, n, recs,
            score, req, prob, praise, quest)
        SELECT workspace_id, span, first_day, theme, sum(sign * n), sum(sign * recs), sum(sign * score), sum(sign * req),
            sum(sign * prob), sum(sign * praise), sum(sign * quest)
        FROM keys GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4
        ON CONFLICT (workspace_id, span, first_day, theme) DO UPDATE SET n = x.n + excluded.n, recs = x.recs + excluded.recs,
            score = x.score + excluded.score, req = x.req + excluded.req, prob = x.prob + excluded.prob,
            praise = x.praise + excluded.praise, quest = x.quest + excluded.quest
        RETURNING x.workspace_id, x.span, x.first_day, x.theme, x.n)
        SELECT array_agg(workspace_id), array_agg(span), array_agg(first_day), array_agg(theme) FROM up WHERE n <= 0'
        INTO e_ws, e_span, e_first, e_theme;
    IF e_ws IS NOT NULL THEN
        DELETE FROM theme_span_days x USING unnest(e_ws, e_span, e_first, e_theme) AS k (ws, sp, fd, th)
        WHERE x.workspace_id = k.ws AND x.span = k.sp AND x.first_day = k.fd AND x.theme = k.th AND x.n <= 0;
    END IF;
    RETURN NULL;
END $$;
CREATE TRIGGER theme_days_spans_insert AFTER INSERT ON theme_days REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION theme_days_spans();
CREATE TRIGGER theme_days_spans_update AFTER UPDATE ON theme_days REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION theme_days_spans();
CREATE TRIGGER theme_days_spans_delete AFTER DELETE ON theme_days REFERENCING OLD TABLE AS old_rows
    FOR EACH STATEMENT EXECUTE FUNCTION theme_days_spans();

CREATE FUNCTION theme_day_companies_spans() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    e_ws      text[];
    e_theme   text[];
    e_span    integer[];
    e_first   integer[];
    e_company text[];
BEGIN
    IF TG_OP = 'DELETE' THEN
        IF NOT EXISTS (SELECT FROM old_rows) THEN
            RETURN NULL;
        END IF;
    ELSIF NOT EXISTS (SELECT FROM new_rows) THEN
        RETURN NULL;
    END IF;
    EXECUTE theme_span_delta(TG_OP) || ', up AS (INSERT INTO theme_span_companies AS x (workspace_id, theme, span, first_day,
            company_id, n)
        SELECT workspace_id, theme, span, first_day, company_id, sum(sign * n) FROM keys
        GROUP BY 1, 2, 3, 4, 5 ORDER BY 1, 2, 3, 4, 5
        ON CONFLICT (workspace_id, theme, span, first_day, company_id) DO UPDATE SET n = x.n + excluded.n
        RETURNING x.workspace_id, x.theme, x.span, x.first_day, x.company_id, x.n)
        SELECT array_agg(workspace_id), array_agg(theme), array_agg(span), array_agg(first_day), array_agg(company_id)
        FROM up WHERE n <= 0'
        INTO e_ws, e_theme, e_span, e_first, e_company;
    IF e_ws IS NOT NULL THEN
        DELETE FROM theme_span_companies x USING unnest(e_ws, e_theme, e_span, e_first, e_company) AS k (ws, th, sp, fd, co)
        WHERE x.workspace_id = k.ws AND x.theme = k.th AND x.span = k.sp AND x.first_day = k.fd AND x.company_id = k.co
            AND x.n <= 0;
    END IF;
    RETURN NULL;
END $$;
CREATE TRIGGER theme_day_companies_spans_insert AFTER INSERT ON theme_day_companies REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION theme_day_companies_spans();
CREATE TRIGGER theme_day_companies_spans_update AFTER UPDATE ON theme_day_companies
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION theme_day_companies_spans();
CREATE TRIGGER theme_day_companies_spans_delete AFTER DELETE ON theme_day_companies REFERENCING OLD TABLE AS old_rows
    FOR EACH STATEMENT EXECUTE FUNCTION theme_day_companies_spans();
