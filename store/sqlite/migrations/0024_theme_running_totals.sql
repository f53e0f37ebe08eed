-- Signals of a window summed one row per theme (and company) and day of it. Running totals make the read
-- bounded by the number of themes and of the top themes' companies instead: theme_day_totals holds, for each
-- theme and each day it has a day row (or had one), the sums of theme_days over every day up to that one;
-- theme_company_totals the same for theme_day_companies, per theme and company. A window's count is the
-- total at its last day less the total before its first day, each the row of the latest day at or before
-- it. theme_list and theme_company_list name the themes and each theme's companies that have a running total.
-- Triggers on the day tables keep them, so every path that writes a day row (the insight batch, the deletion
-- triggers, a record's company moving) keeps them too. A day row's change adds to its day's running total
-- and to every later one; a day row deleted leaves its day's running total (equal then to the day before's).
CREATE TABLE theme_list (
    workspace_id  TEXT NOT NULL,
    theme         TEXT NOT NULL,
    PRIMARY KEY (workspace_id, theme)
) WITHOUT ROWID;

CREATE TABLE theme_day_totals (
    workspace_id  TEXT NOT NULL,
    theme         TEXT NOT NULL,
    day           INTEGER NOT NULL,
    n             INTEGER NOT NULL,
    recs          INTEGER NOT NULL,
    score         REAL NOT NULL,
    req           INTEGER NOT NULL,
    prob          INTEGER NOT NULL,
    praise        INTEGER NOT NULL,
    quest         INTEGER NOT NULL,
    PRIMARY KEY (workspace_id, theme, day)
) WITHOUT ROWID;

CREATE TABLE theme_company_list (
    workspace_id  TEXT NOT NULL,
    theme         TEXT NOT NULL,
    company_id    TEXT NOT NULL,
    PRIMARY KEY (workspace_id, theme, company_id)
) WITHOUT ROWID;

CREATE TABLE theme_company_totals (
    workspace_id  TEXT NOT NULL,
    theme         TEXT NOT NULL,
    company_id    TEXT NOT NULL,
    day           INTEGER NOT NULL,
    n             INTEGER NOT NULL,
    PRIMARY KEY (workspace_id, theme, company_id, day)
) WITHOUT ROWID;

INSERT INTO theme_list (workspace_id, theme) SELECT DISTINCT workspace_id, theme FROM theme_days;

INSERT INTO theme_day_totals (workspace_id, theme, day, n, recs, score, req, prob, praise, quest)
SELECT workspace_id, theme, day,
    sum(n) OVER w, sum(recs) OVER w, total(score) OVER w, sum(req) OVER w, sum(prob) OVER w, sum(praise) OVER w,
    sum(quest) OVER w
FROM theme_days WINDOW w AS (PARTITION BY workspace_id, theme ORDER BY day);

INSERT INTO theme_company_list (workspace_id, theme, company_id)
SELECT DISTINCT workspace_id, theme, company_id FROM theme_day_companies;

INSERT INTO theme_company_totals (workspace_id, theme, company_id, day, n)
SELECT workspace_id, theme, company_id, day, sum(n) OVER (PARTITION BY workspace_id, theme, company_id ORDER BY day)
FROM theme_day_companies;

CREATE TRIGGER theme_days_totals_insert AFTER INSERT ON theme_days BEGIN
    INSERT OR IGNORE INTO theme_list (workspace_id, theme) VALUES (new.workspace_id, new.theme);
    INSERT OR IGNORE INTO theme_day_totals (workspace_id, theme, day, n, recs, score, req, prob, praise, quest)
    SELECT new.workspace_id, new.theme, new.day, coalesce(max(n), 0), coalesce(max(recs), 0), coalesce(max(score), 0),
        coalesce(max(req), 0), coalesce(max(prob), 0), coalesce(max(praise), 0), coalesce(max(quest), 0)
    FROM (SELECT * FROM theme_day_totals WHERE workspace_id = new.workspace_id AND theme = new.theme AND day < new.day
        ORDER BY day DESC LIMIT 1);
    UPDATE theme_day_totals SET n = n + new.n, recs = recs + new.recs, score = score + new.score, req = req + new.req,
        prob = prob + new.prob, praise = praise + new.praise, quest = quest + new.quest
    WHERE workspace_id = new.workspace_id AND theme = new.theme AND day >= new.day;
END;

CREATE TRIGGER theme_days_totals_update AFTER UPDATE ON theme_days BEGIN
    UPDATE theme_day_totals SET n = n + new.n - old.n, recs = recs + new.recs - old.recs, score = score + new.score - old.score,
        req = req + new.req - old.req, prob = prob + new.prob - old.prob, praise = praise + new.praise - old.praise,
        quest = quest + new.quest - old.quest
    WHERE workspace_id = new.workspace_id AND theme = new.theme AND day >= new.day;
END;

CREATE TRIGGER theme_days_totals_delete AFTER DELETE ON theme_days BEGIN
    UPDATE theme_day_totals SET n = n - old.n, recs = recs - old.recs, score = score - old.score, req = req - old.req,
        prob = prob - old.prob, praise = praise - old.praise, quest = quest - old.quest
    WHERE workspace_id = old.workspace_id AND theme = old.theme AND day >= old.day;
END;

CREATE TRIGGER theme_day_companies_totals_insert AFTER INSERT ON theme_day_companies BEGIN
    INSERT OR IGNORE INTO theme_company_list (workspace_id, theme, company_id) VALUES (new.workspace_id, new.theme, new.company_id);
    INSERT OR IGNORE INTO theme_company_totals (workspace_id, theme, company_id, day, n)
    VALUES (new.workspace_id, new.theme, new.company_id, new.day,
        coalesce((SELECT n FROM theme_company_totals WHERE workspace_id = new.workspace_id AND theme = new.theme
            AND company_id = new.company_id AND day < new.day ORDER BY day DESC LIMIT 1), 0));
    UPDATE theme_company_totals SET n = n + new.n
    WHERE workspace_id = new.workspace_id AND theme = new.theme AND company_id = new.company_id AND day >= new.day;
END;

CREATE TRIGGER theme_day_companies_totals_update AFTER UPDATE ON theme_day_companies BEGIN
    UPDATE theme_company_totals SET n = n + new.n - old.n
    WHERE workspace_id = new.workspace_id AND theme = new.theme AND company_id = new.company_id AND day >= new.day;
END;

CREATE TRIGGER theme_day_companies_totals_delete AFTER DELETE ON theme_day_companies BEGIN
    UPDATE theme_company_totals SET n = n - old.n
    WHERE workspace_id = old.workspace_id AND theme = old.theme AND company_id = old.company_id AND day >= old.day;
END;
