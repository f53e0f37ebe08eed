-- Signals of a window summed one row per theme (and company) and span of it, a row per company and span for
-- every top theme. Running totals make the read bounded by the number of themes and of the top themes'
-- companies instead: theme_day_totals holds, for each theme and each day it has a day row (or had one), the
-- sums of theme_days over every day up to that one; theme_company_totals the same for theme_day_companies,
-- per theme and company. A window's count is the total at its last day less the total before its first day,
-- each the row of the latest day at or before it. theme_list and theme_company_list name the themes and each
-- theme's companies that have a running total.
CREATE TABLE theme_list (
    workspace_id  text NOT NULL,
    theme         text NOT NULL,
    PRIMARY KEY (workspace_id, theme)
);

CREATE TABLE theme_day_totals (
    workspace_id  text NOT NULL,
    theme         text NOT NULL,
    day           integer NOT NULL,
    n             integer NOT NULL,
    recs          integer NOT NULL,
    score         double precision NOT NULL,
    req           integer NOT NULL,
    prob          integer NOT NULL,
    praise        integer NOT NULL,
    quest         integer NOT NULL,
    PRIMARY KEY (workspace_id, theme, day)
);

CREATE TABLE theme_company_list (
    workspace_id  text NOT NULL,
    theme         text NOT NULL,
    company_id    text NOT NULL,
    PRIMARY KEY (workspace_id, theme, company_id)
);

CREATE TABLE theme_company_totals (
    workspace_id  text NOT NULL,
    theme         text NOT NULL,
    company_id    text NOT NULL,
    day           integer NOT NULL,
    n             integer NOT NULL,
    PRIMARY KEY (workspace_id, theme, company_id, day) INCLUDE (n)
);

INSERT INTO theme_list (workspace_id, theme) SELECT DISTINCT workspace_id, theme FROM theme_days;

INSERT INTO theme_day_totals (workspace_id, theme, day, n, recs, score, req, prob, praise, quest)
SELECT workspace_id, theme, day, sum(n) OVER w, sum(recs) OVER w, sum(score) OVER w, sum(req) OVER w, sum(prob) OVER w,
    sum(praise) OVER w, sum(quest) OVER w
FROM theme_days WINDOW w AS (PARTITION BY workspace_id, theme ORDER BY day);

INSERT INTO theme_company_list (workspace_id, theme, company_id)
SELECT DISTINCT workspace_id, theme, company_id FROM theme_day_companies;

INSERT INTO theme_company_totals (workspace_id, theme, company_id, day, n)
SELECT workspace_id, theme, company_id, day, sum(n) OVER (PARTITION BY workspace_id, theme, company_id ORDER BY day)
FROM theme_day_companies;

-- Each statement that writes a day table rewrites the running totals from the first day it changed on: the
-- totals of those days and of every later day it has, each the total before (carried from the latest
-- earlier row) plus what the statement changed up to that day. A total is read and then written, so the
-- writers of a workspace's roll-up take its lock first (as the deletion triggers and the insight batch do),
-- and a statement changes them in key order. A day row deleted leaves its day's total (equal then to the
-- day before's). A statement that wrote no row costs one look at its rows.
CREATE FUNCTION theme_days_totals() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'DELETE' THEN
        IF NOT EXISTS (SELECT FROM old_rows) THEN
            RETURN NULL;
        END IF;
        PERFORM pg_advisory_xact_lock(hashtext('theme_rollup'), hashtext(w)) FROM (SELECT DISTINCT workspace_id AS w
            FROM old_rows ORDER BY 1) x;
    ELSE
        IF NOT EXISTS (SELECT FROM new_rows) THEN
            RETURN NULL;
        END IF;
        PERFORM pg_advisory_xact_lock(hashtext('theme_rollup'), hashtext(w)) FROM (SELECT DISTINCT workspace_id AS w
            FROM new_rows ORDER BY 1) x;
        INSERT INTO theme_list AS x (workspace_id, theme) SELECT DISTINCT workspace_id, theme FROM new_rows ORDER BY 1, 2
        ON CONFLICT DO NOTHING;
    END IF;
    EXECUTE theme_span_delta(TG_OP) || ', d AS (SELECT workspace_id, theme, day, sum(sign * n) AS n, sum(sign * recs) AS recs,
            sum(sign * score) AS score, sum(sign * req) AS req, sum(sign * prob) AS prob, sum(sign * praise) AS praise,
            sum(sign * quest) AS quest FROM delta GROUP BY 1, 2, 3),
        firsts AS (SELECT workspace_id, theme, min(day) AS day FROM d GROUP BY 1, 2),
        had AS (SELECT t.* FROM firsts f CROSS JOIN LATERAL (SELECT coalesce((SELECT max(b.day) FROM theme_day_totals b
                WHERE b.workspace_id = f.workspace_id AND b.theme = f.theme AND b.day < f.day), f.day) AS since) s
            JOIN theme_day_totals t ON t.workspace_id = f.workspace_id AND t.theme = f.theme AND t.day >= s.since),
        both_ AS (SELECT workspace_id, theme, day, max(hn) AS hn, max(hrecs) AS hrecs, max(hscore) AS hscore, max(hreq) AS hreq,
                max(hprob) AS hprob, max(hpraise) AS hpraise, max(hquest) AS hquest, sum(n) AS n, sum(recs) AS recs,
                sum(score) AS score, sum(req) AS req, sum(prob) AS prob, sum(praise) AS praise, sum(quest) AS quest
            FROM (SELECT workspace_id, theme, day, n AS hn, recs AS hrecs, score AS hscore, req AS hreq, prob AS hprob,
                    praise AS hpraise, quest AS hquest, 0 AS n, 0 AS recs, 0::float8 AS score, 0 AS req, 0 AS prob, 0 AS praise,
                    0 AS quest FROM had
                UNION ALL SELECT workspace_id, theme, day, NULL, NULL, NULL, NULL, NULL, NULL, NULL, n, recs, score, req, prob,
                    praise, quest FROM d) u
            GROUP BY 1, 2, 3),
        runs AS (SELECT *, count(hn) OVER w AS grp, sum(n) OVER w AS rn, sum(recs) OVER w AS rrecs, sum(score) OVER w AS rscore,
                sum(req) OVER w AS rreq, sum(prob) OVER w AS rprob, sum(praise) OVER w AS rpraise, sum(quest) OVER w AS rquest
            FROM both_ WINDOW w AS (PARTITION BY workspace_id, theme ORDER BY day)),
        carried AS (SELECT *, max(hn) OVER g AS cn, max(hrecs) OVER g AS crecs, max(hscore) OVER g AS cscore,
                max(hreq) OVER g AS creq, max(hprob) OVER g AS cprob, max(hpraise) OVER g AS cpraise, max(hquest) OVER g AS cquest
            FROM runs WINDOW g AS (PARTITION BY workspace_id, theme, grp))
        INSERT INTO theme_day_totals AS x (workspace_id, theme, day, n, recs, score, req, prob, praise, quest)
        SELECT c.workspace_id, c.theme, c.day, coalesce(cn, 0) + rn, coalesce(crecs, 0) + rrecs, coalesce(cscore, 0) + rscore,
            coalesce(creq, 0) + rreq, coalesce(cprob, 0) + rprob, coalesce(cpraise, 0) + rpraise, coalesce(cquest, 0) + rquest
        FROM carried c JOIN firsts f ON f.workspace_id = c.workspace_id AND f.theme = c.theme AND c.day >= f.day
        ORDER BY 1, 2, 3
        ON CONFLICT (workspace_id, theme, day) DO UPDATE SET n = excluded.n, recs = excluded.recs, score = excluded.score,
            req = excluded.req, prob = excluded.prob, praise = excluded.praise, quest = excluded.quest';
    RETURN NULL;
END $$;
CREATE TRIGGER theme_days_totals_insert AFTER INSERT ON theme_days REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION theme_days_totals();
CREATE TRIGGER theme_days_totals_update AFTER UPDATE ON theme_days REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION theme_days_totals();
CREATE TRIGGER theme_days_totals_delete AFTER DELETE ON theme_days REFERENCING OLD TABLE AS old_rows
    FOR EACH STATEMENT EXECUTE FUNCTION theme_days_totals();

CREATE FUNCTION theme_day_companies_totals() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'DELETE' THEN
        IF NOT EXISTS (SELECT FROM old_rows) THEN
            RETURN NULL;
        END IF;
        PERFORM pg_advisory_xact_lock(hashtext('theme_rollup'), hashtext(w)) FROM (SELECT DISTINCT workspace_id AS w
            FROM old_rows ORDER BY 1) x;
    ELSE
        IF NOT EXISTS (SELECT FROM new_rows) THEN
            RETURN NULL;
        END IF;
        PERFORM pg_advisory_xact_lock(hashtext('theme_rollup'), hashtext(w)) FROM (SELECT DISTINCT workspace_id AS w
            FROM new_rows ORDER BY 1) x;
        INSERT INTO theme_company_list AS x (workspace_id, theme, company_id)
        SELECT DISTINCT workspace_id, theme, company_id FROM new_rows ORDER BY 1, 2, 3
        ON CONFLICT DO NOTHING;
    END IF;
    EXECUTE theme_span_delta(TG_OP) || ', d AS (SELECT workspace_id, theme, company_id, day, sum(sign * n) AS n
            FROM delta GROUP BY 1, 2, 3, 4),
        firsts AS (SELECT workspace_id, theme, company_id, min(day) AS day FROM d GROUP BY 1, 2, 3),
        had AS (SELECT t.* FROM firsts f CROSS JOIN LATERAL (SELECT coalesce((SELECT max(b.day) FROM theme_company_totals b
                WHERE b.workspace_id = f.workspace_id AND b.theme = f.theme AND b.company_id = f.company_id AND b.day < f.day),
                f.day) AS since) s
            JOIN theme_company_totals t ON t.workspace_id = f.workspace_id AND t.theme = f.theme AND t.company_id = f.company_id
                AND t.day >= s.since),
        both_ AS (SELECT workspace_id, theme, company_id, day, max(hn) AS hn, sum(n) AS n
            FROM (SELECT workspace_id, theme, company_id, day, n AS hn, 0 AS n FROM had
                UNION ALL SELECT workspace_id, theme, company_id, day, NULL, n FROM d) u
            GROUP BY 1, 2, 3, 4),
        runs AS (SELECT *, count(hn) OVER w AS grp, sum(n) OVER w AS rn
            FROM both_ WINDOW w AS (PARTITION BY workspace_id, theme, company_id ORDER BY day)),
        carried AS (SELECT *, max(hn) OVER (PARTITION BY workspace_id, theme, company_id, grp) AS cn FROM runs)
        INSERT INTO theme_company_totals AS x (workspace_id, theme, company_id, day, n)
        SELECT c.workspace_id, c.theme, c.company_id, c.day, coalesce(cn, 0) + rn
        FROM carried c JOIN firsts f ON f.workspace_id = c.workspace_id AND f.theme = c.theme AND f.company_id = c.company_id
            AND c.day >= f.day
        ORDER BY 1, 2, 3, 4
        ON CONFLICT (workspace_id, theme, company_id, day) DO UPDATE SET n = excluded.n';
    RETURN NULL;
END $$;
CREATE TRIGGER theme_day_companies_totals_insert AFTER INSERT ON theme_day_companies REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION theme_day_companies_totals();
CREATE TRIGGER theme_day_companies_totals_update AFTER UPDATE ON theme_day_companies
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION theme_day_companies_totals();
CREATE TRIGGER theme_day_companies_totals_delete AFTER DELETE ON theme_day_companies REFERENCING OLD TABLE AS old_rows
    FOR EACH STATEMENT EXECUTE FUNCTION theme_day_companies_totals();
