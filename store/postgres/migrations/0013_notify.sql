-- How a connector received a record (a JSON object: the Slack person and message, or the email entry), so
-- that the people who brought an idea can be told when it moves; '' for records from elsewhere.
ALTER TABLE records ADD COLUMN origin text NOT NULL DEFAULT '';
-- The closing-the-loop messages already queued, by their id (derived from person, record and status), so
-- that a second move to the same status sends nothing new even after the first message left the queue.
CREATE TABLE notices_sent (
    id            text PRIMARY KEY,
    workspace_id  text NOT NULL,
    created_at    timestamptz NOT NULL DEFAULT now()
);
