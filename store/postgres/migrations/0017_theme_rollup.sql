-- Signals read a roll-up instead of every insight of a window. record_themes holds each record's share of
-- each theme its insights name (day and company copied from the record, so that a deletion in any order
-- still finds them); theme_days sums those shares per workspace, UTC day of the record's creation and
-- theme; theme_day_companies counts the insights per company. The insight write adds its records' shares
-- in its own transaction, in one statement for the whole batch (rollupSQL); triggers take shares away on
-- every deletion of an insight (re-extraction, record deletion, undo), treat an edit of an insight's
-- themes as its deletion and insertion, and move shares on a change of a record's company, so that those
-- paths need not know of the roll-up. Days are whole days since the Unix epoch.
CREATE TABLE record_themes (
    workspace_id  text NOT NULL,
    record_id     text NOT NULL,
    theme         text NOT NULL,
    day           integer NOT NULL,
    created_at    timestamptz NOT NULL,
    company_id    text NOT NULL,
    n             integer NOT NULL,
    score         double precision NOT NULL,
    req           integer NOT NULL,
    prob          integer NOT NULL,
    praise        integer NOT NULL,
    quest         integer NOT NULL,
    PRIMARY KEY (workspace_id, record_id, theme)
);
-- A signal's examples: the newest records of a theme within the window.
CREATE INDEX record_themes_examples ON record_themes (workspace_id, theme, created_at, record_id);

CREATE TABLE theme_days (
    workspace_id  text NOT NULL,
    day           integer NOT NULL,
    theme         text NOT NULL,
    n             integer NOT NULL,
    recs          integer NOT NULL,
    score         double precision NOT NULL,
    req           integer NOT NULL,
    prob          integer NOT NULL,
    praise        integer NOT NULL,
    quest         integer NOT NULL,
    PRIMARY KEY (workspace_id, day, theme)
);

CREATE TABLE theme_day_companies (
    workspace_id  text NOT NULL,
    theme         text NOT NULL,
    day           integer NOT NULL,
    company_id    text NOT NULL,
    n             integer NOT NULL,
    PRIMARY KEY (workspace_id, theme, day, company_id)
);

CREATE FUNCTION epoch_day(t timestamptz) RETURNS integer LANGUAGE sql IMMUTABLE AS
$$ SELECT floor(extract(epoch FROM t) / 86400)::integer $$;

-- Backfill from the insights already stored: an insight counts once per distinct non-blank theme.
INSERT INTO record_themes (workspace_id, record_id, theme, day, created_at, company_id, n, score, req, prob, praise, quest)
SELECT i.workspace_id, i.record_id, t.theme, epoch_day(r.created_at), r.created_at, r.company_id,
    count(*), sum(i.sentiment_score), count(*) FILTER (WHERE i.kind = 'request'), count(*) FILTER (WHERE i.kind = 'problem'),
    count(*) FILTER (WHERE i.kind = 'praise'), count(*) FILTER (WHERE i.kind = 'question')
FROM insights i
CROSS JOIN LATERAL (SELECT DISTINCT x AS theme FROM unnest(i.themes) x WHERE x <> '') t
JOIN records r ON r.workspace_id = i.workspace_id AND r.id = i.record_id
GROUP BY i.workspace_id, i.record_id, t.theme, r.created_at, r.company_id;

INSERT INTO theme_days (workspace_id, day, theme, n, recs, score, req, prob, praise, quest)
SELECT workspace_id, day, theme, sum(n), count(*), sum(score), sum(req), sum(prob), sum(praise), sum(quest)
FROM record_themes GROUP BY workspace_id, day, theme;

INSERT INTO theme_day_companies (workspace_id, theme, day, company_id, n)
SELECT workspace_id, theme, day, company_id, sum(n) FROM record_themes WHERE company_id <> ''
GROUP BY workspace_id, theme, day, company_id;

-- Row by row, concurrent deletions in one workspace would update the same day rows in different orders and
-- deadlock; the triggers therefore change a workspace's roll-up one transaction at a time. (The batch
-- insert takes its rows in key order instead.)
CREATE FUNCTION insights_rollup() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    t     text;
    d     integer;
    ca    timestamptz;
    c     text;
    left_ integer;
    k     text;
    s     double precision;
BEGIN
    IF TG_OP IN ('DELETE', 'UPDATE') AND cardinality(OLD.themes) > 0 THEN
        PERFORM pg_advisory_xact_lock(hashtext('theme_rollup'), hashtext(OLD.workspace_id));
        k := OLD.kind;
        s := OLD.sentiment_score;
        FOR t IN SELECT DISTINCT x FROM unnest(OLD.themes) x WHERE x <> '' ORDER BY 1 LOOP
            UPDATE record_themes SET n = n - 1, score = score - s, req = req - (k = 'request')::int,
                prob = prob - (k = 'problem')::int, praise = praise - (k = 'praise')::int, quest = quest - (k = 'question')::int
            WHERE workspace_id = OLD.workspace_id AND record_id = OLD.record_id AND theme = t
            RETURNING day, company_id, n INTO d, c, left_;
            CONTINUE WHEN NOT FOUND;
            IF left_ <= 0 THEN
                DELETE FROM record_themes WHERE workspace_id = OLD.workspace_id AND record_id = OLD.record_id AND theme = t;
            END IF;
            UPDATE theme_days SET n = n - 1, recs = recs - (left_ <= 0)::int, score = score - s,
                req = req - (k = 'request')::int, prob = prob - (k = 'problem')::int,
                praise = praise - (k = 'praise')::int, quest = quest - (k = 'question')::int
            WHERE workspace_id = OLD.workspace_id AND day = d AND theme = t;
            DELETE FROM theme_days WHERE workspace_id = OLD.workspace_id AND day = d AND theme = t AND n <= 0;
            IF c <> '' THEN
                UPDATE theme_day_companies SET n = n - 1
                WHERE workspace_id = OLD.workspace_id AND theme = t AND day = d AND company_id = c;
                DELETE FROM theme_day_companies
                WHERE workspace_id = OLD.workspace_id AND theme = t AND day = d AND company_id = c AND n <= 0;
            END IF;
        END LOOP;
    END IF;
    IF TG_OP IN ('INSERT', 'UPDATE') AND cardinality(NEW.themes) > 0 THEN
        SELECT r.created_at, r.company_id INTO ca, c FROM records r WHERE r.workspace_id = NEW.workspace_id AND r.id = NEW.record_id;
        IF NOT FOUND THEN
            RETURN NULL;
        END IF;
        PERFORM pg_advisory_xact_lock(hashtext('theme_rollup'), hashtext(NEW.workspace_id));
        d := epoch_day(ca);
        k := NEW.kind;
        s := NEW.sentiment_score;
        FOR t IN SELECT DISTINCT x FROM unnest(NEW.themes) x WHERE x <> '' ORDER BY 1 LOOP
            INSERT INTO record_themes AS x (workspace_id, record_id, theme, day, created_at, company_id, n, score, req, prob, praise, quest)
            VALUES (NEW.workspace_id, NEW.record_id, t, d, ca, c, 1, s, (k = 'request')::int, (k = 'problem')::int,
                (k = 'praise')::int, (k = 'question')::int)
            ON CONFLICT (workspace_id, record_id, theme) DO UPDATE SET n = x.n + 1, score = x.score + excluded.score,
                req = x.req + excluded.req, prob = x.prob + excluded.prob, praise = x.praise + excluded.praise,
                quest = x.quest + excluded.quest
            RETURNING x.n INTO left_;
            INSERT INTO theme_days AS x (workspace_id, day, theme, n, recs, score, req, prob, praise, quest)
            VALUES (NEW.workspace_id, d, t, 1, (left_ = 1)::int, s, (k = 'request')::int, (k = 'problem')::int,
                (k = 'praise')::int, (k = 'question')::int)
            ON CONFLICT (workspace_id, day, theme) DO UPDATE SET n = x.n + 1, recs = x.recs + excluded.recs,
                score = x.score + excluded.score, req = x.req + excluded.req, prob = x.prob + excluded.prob,
                praise = x.praise + excluded.praise, quest = x.quest + excluded.quest;
            IF c <> '' THEN
                INSERT INTO theme_day_companies AS x (workspace_id, theme, day, company_id, n) VALUES (NEW.workspace_id, t, d, c, 1)
                ON CONFLICT (workspace_id, theme, day, company_id) DO UPDATE SET n = x.n + 1;
            END IF;
        END LOOP;
    END IF;
    RETURN NULL;
END $$;
CREATE TRIGGER insights_rollup AFTER DELETE OR UPDATE OF themes, kind, sentiment_score, record_id, workspace_id
    ON insights FOR EACH ROW EXECUTE FUNCTION insights_rollup();

-- A record that changes company moves its insights' company counts with it.
CREATE FUNCTION records_rollup_company() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM record_themes WHERE workspace_id = NEW.workspace_id AND record_id = NEW.id) THEN
        RETURN NULL;
    END IF;
    PERFORM pg_advisory_xact_lock(hashtext('theme_rollup'), hashtext(NEW.workspace_id));
    UPDATE theme_day_companies d SET n = d.n - x.n FROM record_themes x
    WHERE x.workspace_id = NEW.workspace_id AND x.record_id = NEW.id AND d.workspace_id = x.workspace_id
        AND d.theme = x.theme AND d.day = x.day AND d.company_id = OLD.company_id;
    DELETE FROM theme_day_companies d USING record_themes x
    WHERE x.workspace_id = NEW.workspace_id AND x.record_id = NEW.id AND d.workspace_id = x.workspace_id
        AND d.theme = x.theme AND d.day = x.day AND d.company_id = OLD.company_id AND d.n <= 0;
    INSERT INTO theme_day_companies AS d (workspace_id, theme, day, company_id, n)
    SELECT x.workspace_id, x.theme, x.day, NEW.company_id, x.n FROM record_themes x
    WHERE x.workspace_id = NEW.workspace_id AND x.record_id = NEW.id AND NEW.company_id <> ''
    ON CONFLICT (workspace_id, theme, day, company_id) DO UPDATE SET n = d.n + excluded.n;
    UPDATE record_themes SET company_id = NEW.company_id WHERE workspace_id = NEW.workspace_id AND record_id = NEW.id;
    RETURN NULL;
END $$;
CREATE TRIGGER records_rollup_company AFTER UPDATE OF company_id ON records
    FOR EACH ROW WHEN (OLD.company_id IS DISTINCT FROM NEW.company_id) EXECUTE FUNCTION records_rollup_company();
