-- Insight jobs and inbound deliveries move onto the general queue: the kind of work is data (queue, kind)
-- and one claim, lease, retry and failure serve every user. Jobs still to do and failed ones are carried
-- over in the order they were queued (done jobs are history and are not); then the old tables go.
INSERT INTO queue_items (id, queue, kind, workspace_id, order_key, body, state, attempts, last_error, retry_for_ms,
        run_at, lease_until, leased_by, give_up_at, created_at, updated_at)
    SELECT id, 'insights', 'insight', workspace_id, record_id, '\x'::bytea, state, attempts, last_error, 86400000,
        run_at, lease_until, leased_by, run_at + interval '1 day', created_at, updated_at
    FROM insight_jobs WHERE state IN ('queued', 'running', 'failed') ORDER BY created_at, id;
INSERT INTO queue_items (id, queue, kind, workspace_id, order_key, body, state, attempts, last_error, retry_for_ms,
        run_at, lease_until, leased_by, give_up_at, created_at, updated_at)
    SELECT id, 'delivery:' || entry, 'delivery', workspace_id, '', body, state, attempts, last_error, 86400000,
        run_at, lease_until, leased_by, run_at + interval '1 day', created_at, updated_at
    FROM deliveries ORDER BY created_at, id;
DROP TABLE insight_jobs;
DROP TABLE deliveries;
-- The fair claim walks one queue's due items per workspace in due order; expired leases are found by
-- their end. The key index loses its state condition: the check for an earlier pending item of a key
-- finds none in the index almost always (and reads a row only when it does), a claim or a failure no
-- longer moves the item in it, and the same index finds a deleted record's insight jobs, failed or not.
CREATE INDEX queue_items_due ON queue_items (queue, workspace_id, run_at, seq) WHERE state = 'queued';
CREATE INDEX queue_items_running ON queue_items (queue, lease_until) WHERE state = 'running';
DROP INDEX queue_items_key;
CREATE INDEX queue_items_key ON queue_items (queue, order_key, seq) WHERE order_key <> '';
