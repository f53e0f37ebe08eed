-- Listings filtered by product or assignee read these in (createdAt, id) order instead of scanning the whole
-- workspace; partial, so records without a product or assignee (most feedback) pay nothing for them.
CREATE INDEX records_product ON records(workspace_id, type, product_id, created_at, id) WHERE product_id IS NOT NULL;
CREATE INDEX records_assignee ON records(workspace_id, type, assignee_id, created_at, id) WHERE assignee_id IS NOT NULL;
