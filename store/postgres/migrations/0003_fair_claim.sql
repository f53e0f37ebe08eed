-- Claims take queued jobs in turn from each workspace: this index lists the workspaces that have queued
-- jobs and each one's jobs in due order, so a claim reads a few entries instead of sorting the queue.
CREATE INDEX insight_jobs_fair ON insight_jobs (workspace_id, run_at, id) WHERE state = 'queued';
