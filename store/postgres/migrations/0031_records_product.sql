-- Listings by product: no index led with the product, so a page of one product's records walked the
-- type's records newest first and dropped every other product's (and, with a status or source beside
-- it, every other status's and source's) before it had a page. A product's records in listing order,
-- read directly; records without a product (most creates from a form or an import) take no entry, and a
-- listing never asks for the empty product.
CREATE INDEX records_product ON records (workspace_id, product_id, type, created_at, id) WHERE product_id <> '';
